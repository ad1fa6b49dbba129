//! `othismo-run`'s flags for joining a cluster, and what they make: where
//! the node is, what it runs, and what it presents to the NATS servers.

use std::path::PathBuf;

use super::credentials::{Credentials, Tls, nkey_seed};
use super::{ClusterConfig, PlacementChoice};

#[derive(Clone, Debug, Default, clap::Args)]
pub struct ClusterArgs {
    /// Run this node's part of the image in a cluster: the NATS servers,
    /// comma-separated (`nats://HOST:PORT,...`). Every node loads the same
    /// bundle; requests to instances run by other nodes go over NATS
    #[arg(long, value_name = "URLS", value_delimiter = ',', requires = "placed")]
    pub cluster: Vec<String>,

    /// With --cluster: the instances this node runs, comma-separated (the
    /// others are run by other nodes)
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        requires = "cluster",
        group = "placed"
    )]
    pub instances: Vec<String>,

    /// With --cluster, instead of --instances: a placement file (`image
    /// NAME`, then `node NAME: INSTANCE, ...` lines), checked against the
    /// bundle as `othc check --placement` checks it; this node runs what
    /// --node's line names
    #[arg(
        long,
        value_name = "FILE",
        requires = "cluster",
        requires = "node",
        conflicts_with = "instances",
        group = "placed"
    )]
    pub placement: Option<PathBuf>,

    /// With --placement: the node of the placement this process is
    #[arg(long, value_name = "NAME", requires = "placement")]
    pub node: Option<String>,

    /// With --cluster: the NATS user (and OTHISMO_CLUSTER_PASSWORD, or
    /// --cluster-password)
    #[arg(long, env = "OTHISMO_CLUSTER_USER", requires = "cluster")]
    pub cluster_user: Option<String>,

    /// With --cluster: the NATS user's password
    #[arg(
        long,
        env = "OTHISMO_CLUSTER_PASSWORD",
        requires = "cluster_user",
        hide_env_values = true
    )]
    pub cluster_password: Option<String>,

    /// With --cluster: a file holding the node's nkey seed (`SU...`, as
    /// `nk -gen user` writes it), instead of a user and password
    #[arg(
        long,
        value_name = "FILE",
        env = "OTHISMO_CLUSTER_NKEY",
        requires = "cluster",
        conflicts_with = "cluster_user"
    )]
    pub cluster_nkey: Option<PathBuf>,

    /// With --cluster: speak TLS to the NATS servers, and refuse one that
    /// does not (their certificates checked against the system's
    /// authorities, or --cluster-tls-ca)
    #[arg(long, requires = "cluster")]
    pub cluster_tls: bool,

    /// With --cluster: the certificate authority (PEM) the NATS servers'
    /// certificates are checked against (implies --cluster-tls)
    #[arg(
        long,
        value_name = "FILE",
        env = "OTHISMO_CLUSTER_TLS_CA",
        requires = "cluster"
    )]
    pub cluster_tls_ca: Option<PathBuf>,

    /// With --cluster: this node's certificate (PEM), for servers that
    /// verify their clients (implies --cluster-tls; needs --cluster-tls-key)
    #[arg(
        long,
        value_name = "FILE",
        env = "OTHISMO_CLUSTER_TLS_CERT",
        requires = "cluster",
        requires = "cluster_tls_key"
    )]
    pub cluster_tls_cert: Option<PathBuf>,

    /// With --cluster-tls-cert: its private key (PEM)
    #[arg(
        long,
        value_name = "FILE",
        env = "OTHISMO_CLUSTER_TLS_KEY",
        requires = "cluster_tls_cert"
    )]
    pub cluster_tls_key: Option<PathBuf>,
}

impl ClusterArgs {
    /// The cluster to join, if any; `Err` says which file could not be read.
    pub fn config(&self) -> Result<Option<ClusterConfig>, String> {
        if self.cluster.is_empty() {
            return Ok(None);
        }
        let placement = match (&self.placement, &self.node) {
            (Some(file), Some(node)) => Some(PlacementChoice {
                file: file.display().to_string(),
                text: read(file, "the placement")?,
                node: node.clone(),
            }),
            _ => None,
        };
        let nkey_seed = match &self.cluster_nkey {
            Some(file) => Some(
                nkey_seed(&read(file, "the nkey seed file")?)
                    .map_err(|e| format!("the nkey seed file `{}`: {e}", file.display()))?,
            ),
            None => None,
        };
        for (file, what) in [
            (&self.cluster_tls_ca, "the certificate authority"),
            (&self.cluster_tls_cert, "the certificate"),
            (&self.cluster_tls_key, "the certificate's key"),
        ] {
            if let Some(f) = file {
                read(f, what)?;
            }
        }
        Ok(Some(ClusterConfig {
            servers: self.cluster.clone(),
            instances: self.instances.clone(),
            placement,
            credentials: Credentials {
                user: self
                    .cluster_user
                    .clone()
                    .map(|u| (u, self.cluster_password.clone().unwrap_or_default())),
                nkey_seed,
                tls: Tls {
                    required: self.cluster_tls,
                    ca: self.cluster_tls_ca.clone(),
                    client: self
                        .cluster_tls_cert
                        .clone()
                        .zip(self.cluster_tls_key.clone()),
                },
            },
        }))
    }
}

/// The text of `file`, or why it cannot be read.
fn read(file: &std::path::Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {what} `{}`: {e}", file.display()))
}
