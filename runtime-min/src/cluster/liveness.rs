//! Who is still there, and whether anything is moving: nodes lost by
//! their silence, and the quiet a console's node waits for to end.

use std::sync::atomic::Ordering;

use super::node::{self, LOST};
use crate::{Body, Runtime, Sender};

impl Runtime<'_> {
    /// Node `node` is lost (no beat for `LOST`): requests it took fail
    /// (`unavailable`), and what it asked of the instances here is
    /// withdrawn (their streams end, their requests are cancelled).
    pub(super) fn lose_node(&mut self, node: String) {
        let Some(c) = &mut self.cluster else { return };
        c.beats.remove(&node);
        let failed: Vec<super::Sent> = c
            .taken
            .iter()
            .filter(|(_, n)| **n == node)
            .map(|(k, _)| *k)
            .collect();
        let their_reply = format!("{}.n.{node}", c.prefix);
        let callers: Vec<u32> = c
            .callers
            .iter()
            .filter(|(_, caller)| caller.reply == their_reply)
            .map(|(k, _)| *k)
            .collect();
        let relayed: Vec<_> = callers.iter().filter_map(|k| c.forget_caller(*k)).collect();
        let _ = writeln!(
            self.io.err,
            "cluster: node {node} is lost (no heartbeat for {} ms): {} request(s) it took fail",
            LOST.as_millis(),
            failed.len()
        );
        for super::Sent { proxy: a, id } in failed {
            let to = &self.actors[a].name;
            let desc = format!("node {node}, which took the request to `{to}`, is lost");
            self.fail_unavailable(a, id, desc);
        }
        for k in callers {
            self.withdraw(Sender::Remote(k), None);
        }
        for r in relayed {
            self.forget_relayed(Some(r));
        }
    }

    /// Whether being in a cluster keeps this node running, idle as it is.
    /// A node that runs the console ends as a local run does, once its
    /// input has ended, but only when nothing is moving anywhere in the
    /// cluster (the console may still be written to); a node without it
    /// serves until SIGINT or SIGTERM.
    pub(crate) fn cluster_holds(&mut self) -> bool {
        if self.cluster.is_none() || self.ending.halted || self.ending.stopping.is_some() {
            return false;
        }
        let console_here = self
            .actors
            .iter()
            .any(|a| matches!(a.body, Body::Console(_)));
        !(console_here && self.input.ended && self.cluster_quiet())
    }

    /// This node says whether it is idle, for the others' heartbeats.
    pub(crate) fn cluster_idle(&self, idle: bool) {
        if let Some(c) = &self.cluster {
            c.node.counters.idle.store(idle, Ordering::SeqCst);
        }
    }

    /// Whether the whole cluster is quiet: every node heard from lately is
    /// idle, every message sent has been received, and the totals are the
    /// ones of the last look (so nothing moved in between).
    pub(crate) fn cluster_quiet(&mut self) -> bool {
        let Some(c) = &mut self.cluster else {
            return true;
        };
        let fresh = node::BEAT * 4;
        c.beats.retain(|_, (at, _)| at.elapsed() < fresh);
        let (mut sent, mut received) = (
            c.node.counters.sent.load(Ordering::SeqCst),
            c.node.counters.received.load(Ordering::SeqCst),
        );
        let mut idle = true;
        // This node's own heartbeat comes back too: its counts are taken
        // as they are now instead.
        for (_, b) in c.beats.values().filter(|(_, b)| b.node != c.name) {
            idle &= b.idle;
            sent += b.sent;
            received += b.received;
        }
        let totals = (sent, received);
        let quiet = idle && sent == received && c.last_quiet == Some(totals);
        c.last_quiet = (idle && sent == received).then_some(totals);
        quiet
    }
}
