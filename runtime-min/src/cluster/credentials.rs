//! How a node proves who it is to the NATS servers, and how it knows them:
//! a user and password or an nkey (whose seed signs the server's nonce and
//! never travels), and TLS with the servers' certificate authority and,
//! when the servers ask for one, a certificate of the node's own.

use std::path::PathBuf;

/// What a node presents to the NATS servers.
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    /// A user and password.
    pub user: Option<(String, String)>,
    /// An nkey's seed (`SU...`), read from a file.
    pub nkey_seed: Option<String>,
    pub tls: Tls,
}

/// TLS to the servers. Asked for by any of its settings.
#[derive(Clone, Debug, Default)]
pub struct Tls {
    /// Refuse a server that does not speak TLS, trusting the system's
    /// certificate authorities unless `ca` is given.
    pub required: bool,
    /// The certificate authority (PEM) the servers' certificates are
    /// checked against.
    pub ca: Option<PathBuf>,
    /// The node's own certificate and key (PEM), for servers that verify
    /// their clients.
    pub client: Option<(PathBuf, PathBuf)>,
}

impl Tls {
    fn wanted(&self) -> bool {
        self.required || self.ca.is_some() || self.client.is_some()
    }
}

impl Credentials {
    /// `opts` presenting these credentials.
    pub(crate) fn apply(&self, mut opts: async_nats::ConnectOptions) -> async_nats::ConnectOptions {
        if let Some((user, pass)) = &self.user {
            opts = opts.user_and_password(user.clone(), pass.clone());
        }
        if let Some(seed) = &self.nkey_seed {
            opts = opts.nkey(seed.clone());
        }
        if self.tls.wanted() {
            opts = opts.require_tls(true);
        }
        if let Some(ca) = &self.tls.ca {
            opts = opts.add_root_certificates(ca.clone());
        }
        if let Some((cert, key)) = &self.tls.client {
            opts = opts.add_client_certificate(cert.clone(), key.clone());
        }
        opts
    }
}

impl Credentials {
    /// What to do about connection error `e`, when it is one these
    /// credentials can cause.
    pub(crate) fn hint(&self, e: &str) -> Option<&'static str> {
        if e.contains("authorization violation") {
            Some(
                "the servers refuse this node's credentials: give a user they know \
                 (--cluster-user and --cluster-password) or an nkey (--cluster-nkey)",
            )
        } else if e.contains("UnknownIssuer") {
            Some(
                "the servers' certificate is signed by no authority this node trusts: \
                 give theirs with --cluster-tls-ca",
            )
        } else if self.tls.wanted()
            && (e.contains("corrupt message") || e.contains("InvalidContentType"))
        {
            Some("the servers do not seem to speak TLS")
        } else if self.tls.client.is_none()
            && (e.contains("CertificateRequired") || e.contains("BadCertificate"))
        {
            Some(
                "the servers verify their clients: give this node's certificate \
                 (--cluster-tls-cert and --cluster-tls-key)",
            )
        } else {
            None
        }
    }
}

/// The seed of an nkey in `text` (a seed file: the seed on a line of its
/// own, as `nk -gen user` writes it; other lines, such as the public key,
/// are skipped).
pub fn nkey_seed(text: &str) -> Result<String, String> {
    text.lines()
        .map(str::trim)
        .find(|l| {
            l.starts_with('S') && l.len() > 50 && l.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        .map(str::to_string)
        .ok_or_else(|| {
            "it holds no nkey seed (a line starting `SU`, as `nk -gen user` writes)".into()
        })
}
