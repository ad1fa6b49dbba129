//! What a handler answers: a value, or a JSON-RPC error (`Failure`); and
//! the params of a request read, or the error that answers bad ones.

use lsp_server::ErrorCode;
use serde_json::Value;

/// An error answer: a JSON-RPC code and a message.
pub type Failure = (i32, String);

/// Parses a request's params, or the error that answers bad ones.
pub fn params<P: serde::de::DeserializeOwned>(v: &Value) -> Result<P, Failure> {
    serde_json::from_value(v.clone()).map_err(|e| {
        (
            ErrorCode::InvalidParams as i32,
            format!("invalid params: {e}"),
        )
    })
}

/// A handler's answer as JSON.
pub fn json<T: serde::Serialize>(v: Result<T, Failure>) -> Result<Value, Failure> {
    v.map(|x| serde_json::to_value(x).unwrap_or(Value::Null))
}
