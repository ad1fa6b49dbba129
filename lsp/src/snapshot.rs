//! What a request is answered from: the documents and settings as they
//! were when the request came, and the analysis of that text. Taken on the
//! main loop and handed to the request's own thread, so a request that
//! needs a new analysis (an edit came since the last check) makes it there
//! while the loop goes on taking edits; the analysis goes back to the loop,
//! which publishes its diagnostics and keeps it for the next request.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crossbeam_channel::Sender;
use lsp_types::{TextDocumentPositionParams, Url};
use othc::ide::{Analysis, Target};
use othc::source::{FileId, FileSpan};

use crate::config::Config;
use crate::lines::LineIndex;
use crate::workspace::{Documents, analyze, path_of};

/// A finished check (by the loop's debounce, or for a request).
pub(crate) struct Done {
    pub generation: u64,
    pub analysis: Option<Arc<Analysis>>,
    /// A request's: told once the loop has published what it says, so the
    /// request is answered after the diagnostics of the text it saw.
    pub published: Option<Sender<()>>,
}

pub struct Snapshot {
    pub config: Config,
    pub docs: Documents,
    analysis: OnceLock<Option<Arc<Analysis>>>,
    /// The loop's generation when taken: what a fresh analysis is of.
    generation: u64,
    back: Sender<Done>,
}

impl Snapshot {
    /// `fresh` is the loop's analysis if it is of this very text.
    pub(crate) fn new(
        config: Config,
        docs: Documents,
        fresh: Option<Arc<Analysis>>,
        generation: u64,
        back: Sender<Done>,
    ) -> Snapshot {
        let analysis = OnceLock::new();
        if fresh.is_some() {
            let _ = analysis.set(fresh);
        }
        Snapshot {
            config,
            docs,
            analysis,
            generation,
            back,
        }
    }

    /// The analysis of the documents as they were: the loop's, or made
    /// here once and sent back to the loop, which publishes its
    /// diagnostics before this returns (a client hears of what the text
    /// it asked about says before it hears the answer).
    pub fn analysis(&self) -> Option<Arc<Analysis>> {
        self.analysis
            .get_or_init(|| {
                let a = analyze(&self.docs).map(Arc::new);
                let (published, told) = crossbeam_channel::bounded(1);
                let sent = self.back.send(Done {
                    generation: self.generation,
                    analysis: a.clone(),
                    published: Some(published),
                });
                if sent.is_ok() {
                    // The loop only publishes and keeps it: a moment, unless
                    // it has stopped.
                    let _ = told.recv_timeout(Duration::from_secs(10));
                }
                a
            })
            .clone()
    }
}

/// A place in a document, in the analysis's terms.
pub struct Place {
    pub analysis: Arc<Analysis>,
    pub file: FileId,
    pub offset: usize,
}

impl Snapshot {
    /// The analysis and file of `uri` (`None`: not a file the check loaded).
    pub fn file(&self, uri: &Url) -> Option<(Arc<Analysis>, FileId)> {
        let path = path_of(uri)?;
        let analysis = self.analysis()?;
        let file = analysis.file(&path.display().to_string())?;
        Some((analysis, file))
    }

    /// What is named at `at`, where it is, and the place asked about.
    pub fn target(&self, at: &TextDocumentPositionParams) -> Option<(Place, Target, FileSpan)> {
        let pl = self.place(at)?;
        let (target, span) = pl.analysis.at(pl.file, pl.offset)?;
        Some((pl, target, span))
    }

    /// Where `at` is, in the analysis's terms.
    pub fn place(&self, at: &TextDocumentPositionParams) -> Option<Place> {
        let (analysis, file) = self.file(&at.text_document.uri)?;
        let offset = LineIndex::of(analysis.compiled.front.sources.get(file)).offset(at.position);
        Some(Place {
            analysis,
            file,
            offset,
        })
    }
}
