//! What a node presents to NATS servers that ask for it, against a real
//! `nats-server` each time: a user and password, an nkey (a key pair made
//! here), TLS with the servers' own certificate authority, and a client
//! certificate for servers that verify their clients (certificates made by
//! `openssl`, installed if missing). Each time a node without the right
//! credentials is refused (exit 2, saying why, never joining), and the
//! hello image runs across two nodes that have them.

mod common;
mod nodes;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nodes::{Nats, bundle_file, node_output};

/// Hello across two nodes started with `args` and `env`: what the console
/// printed.
fn hello_with(bundle: &Path, nats: &Nats, args: &[&str], env: &[(&str, &str)]) -> String {
    let run = |instances: &str| {
        Command::new(env!("CARGO_BIN_EXE_othismo-run"))
            .arg(bundle)
            .args(["--cluster", &nats.url, "--instances", instances])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut console = run("cons,loud");
    let mut cerr = BufReader::new(console.stderr.take().unwrap());
    let mut line = String::new();
    cerr.read_line(&mut line).unwrap();
    assert!(line.starts_with("joined the cluster"), "{line}");
    let mut greeter = run("greeter");
    console.stdin.take().unwrap().write_all(b"Ada\n").unwrap();
    let mut out = String::new();
    console
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(console.wait().unwrap().code(), Some(0));
    let _ = greeter.kill();
    let _ = greeter.wait();
    out
}

/// A node that must be refused: its stderr.
fn refused(bundle: &Path, nats: &Nats, more: &[&str]) -> String {
    let out = node_output(bundle, nats, "cons,loud", more);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("joined the cluster"), "{err}");
    assert!(err.contains("cannot join the cluster"), "{err}");
    err
}

/// NATS servers that ask for a user: a node without it cannot join (exit
/// 2, saying why); with it, from the environment, the image runs.
#[test]
fn a_user_and_password() {
    let Some(nats) = Nats::start_with(&["--user", "oth", "--pass", "s3cret"]) else {
        return;
    };
    let bundle = bundle_file("cluster_auth", &[]);
    let err = refused(&bundle, &nats, &[]);
    assert!(
        err.contains("the servers refuse this node's credentials"),
        "{err}"
    );
    refused(
        &bundle,
        &nats,
        &["--cluster-user", "oth", "--cluster-password", "guess"],
    );
    let out = hello_with(
        &bundle,
        &nats,
        &[],
        &[
            ("OTHISMO_CLUSTER_USER", "oth"),
            ("OTHISMO_CLUSTER_PASSWORD", "s3cret"),
        ],
    );
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n");
}

/// Servers that know one nkey: its seed (from a file, named by a flag or
/// the environment) lets a node in; another key's seed, none, or a file
/// that holds no seed does not.
#[test]
fn an_nkey() {
    let dir = common::scratch("cluster_nkey");
    let key = nkeys::KeyPair::new_user();
    let config = dir.join("nats.conf");
    std::fs::write(
        &config,
        format!(
            "authorization {{ users = [ {{ nkey: \"{}\" }} ] }}\n",
            key.public_key()
        ),
    )
    .unwrap();
    let Some(nats) = Nats::start_with(&["-c", config.to_str().unwrap()]) else {
        return;
    };
    let bundle = bundle_file("cluster_nkey_bundle", &[]);
    let seed = dir.join("node.nk");
    std::fs::write(
        &seed,
        format!("{}\n{}\n", key.public_key(), key.seed().unwrap()),
    )
    .unwrap();
    let other = dir.join("other.nk");
    std::fs::write(&other, nkeys::KeyPair::new_user().seed().unwrap()).unwrap();
    let not_a_seed = dir.join("empty.nk");
    std::fs::write(&not_a_seed, "hello\n").unwrap();

    refused(&bundle, &nats, &[]);
    refused(&bundle, &nats, &["--cluster-nkey", other.to_str().unwrap()]);
    let out = node_output(
        &bundle,
        &nats,
        "cons,loud",
        &["--cluster-nkey", not_a_seed.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds no nkey seed"), "{err}");

    let by_flag = hello_with(
        &bundle,
        &nats,
        &["--cluster-nkey", seed.to_str().unwrap()],
        &[],
    );
    assert_eq!(by_flag, "Hi, Ada.\nHI, ADA.\n");
    let by_env = hello_with(
        &bundle,
        &nats,
        &[],
        &[("OTHISMO_CLUSTER_NKEY", seed.to_str().unwrap())],
    );
    assert_eq!(by_env, "Hi, Ada.\nHI, ADA.\n");
}

/// A certificate authority, a server certificate for 127.0.0.1 and a
/// client certificate, each signed by it, made by `openssl` in `dir`.
struct Certs {
    ca: PathBuf,
    server: (PathBuf, PathBuf),
    client: (PathBuf, PathBuf),
}

fn certificates(dir: &Path) -> Option<Certs> {
    if !test_support::runnable(test_support::ensure_debian_tool("openssl", "openssl")) {
        return None;
    }
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509", "-days", "2", "-subj", "/CN=othismo test CA"][..],
            &ec,
            &["-keyout", "ca.key", "-out", "ca.pem"],
        ]
        .concat(),
    );
    for (name, ext) in [
        (
            "server",
            "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
        ),
        ("client", "extendedKeyUsage=clientAuth\n"),
    ] {
        std::fs::write(dir.join(format!("{name}.ext")), ext).unwrap();
        openssl(
            &[
                &["req", "-subj", &format!("/CN=othismo test {name}")][..],
                &ec,
                &[
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.csr"),
                ],
            ]
            .concat(),
        );
        openssl(&[
            "x509",
            "-req",
            "-days",
            "2",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-extfile",
            &format!("{name}.ext"),
            "-out",
            &format!("{name}.pem"),
        ]);
    }
    let pair = |name: &str| {
        (
            dir.join(format!("{name}.pem")),
            dir.join(format!("{name}.key")),
        )
    };
    Some(Certs {
        ca: dir.join("ca.pem"),
        server: pair("server"),
        client: pair("client"),
    })
}

/// Servers that speak TLS only: a node that does not trust their
/// authority is refused; given it, the image runs. Servers that also
/// verify their clients refuse a node without a certificate of theirs.
#[test]
fn tls_with_the_servers_authority_and_a_client_certificate() {
    let dir = common::scratch("cluster_tls");
    let Some(certs) = certificates(&dir) else {
        return;
    };
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (cert, key) = (s(&certs.server.0), s(&certs.server.1));
    let Some(nats) = Nats::start_with(&["--tls", "--tlscert", &cert, "--tlskey", &key]) else {
        return;
    };
    let bundle = bundle_file("cluster_tls_bundle", &[]);
    let ca = s(&certs.ca);
    // Checked against the system's authorities, the servers' is unknown.
    for more in [&[][..], &["--cluster-tls"]] {
        let err = refused(&bundle, &nats, more);
        assert!(err.contains("give theirs with --cluster-tls-ca"), "{err}");
    }
    let out = hello_with(&bundle, &nats, &["--cluster-tls-ca", &ca], &[]);
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n");
    drop(nats);

    let Some(verifying) = Nats::start_with(&[
        "--tlsverify",
        "--tlscert",
        &cert,
        "--tlskey",
        &key,
        "--tlscacert",
        &ca,
    ]) else {
        return;
    };
    let err = refused(&bundle, &verifying, &["--cluster-tls-ca", &ca]);
    assert!(err.contains("give this node's certificate"), "{err}");
    let (ccert, ckey) = (s(&certs.client.0), s(&certs.client.1));
    let out = hello_with(
        &bundle,
        &verifying,
        &["--cluster-tls-ca", &ca],
        &[
            ("OTHISMO_CLUSTER_TLS_CERT", &ccert),
            ("OTHISMO_CLUSTER_TLS_KEY", &ckey),
        ],
    );
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n");
}
