//! The conversation: an array of messages in OpenAI's shape (`{ role, content, ... }`), each
//! read as the command reads `--conversation` (its fields kept as given, in their order).

use mentor_context::prompt::Message;
use serde::Deserialize;

use crate::codec::Codec;
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::given::Given;
use crate::raw::{Env, Value};
use crate::request::internal;

fn refused(message: String) -> Failure {
    Failure::new(ErrorCode::InvalidConversation, message)
}

/// The messages of `conversation`, or the error naming the one that is not a message.
/// Whether the last one is the user's question the library checks, naming the message.
pub(crate) fn read(env: Env, codec: &Codec, conversation: Value) -> napi::Result<Vec<Message>> {
    let packed = codec.pack(env, conversation)?;
    let read = (|| {
        let mut reader = packed.reader().map_err(internal)?;
        if let Some(what) = reader.unsupported() {
            return Err(refused(format!(
                "conversation: expected an array of messages ({{ role, content }}), got {what}"
            )));
        }
        if !reader.is_array() {
            let what = match Given::deserialize(&mut reader) {
                Ok(Given::Object(_)) => "an object (wrap the message in [ ])".to_string(),
                Ok(other) => other.described(),
                Err(err) => err.0,
            };
            return Err(refused(format!(
                "conversation: expected an array of messages ({{ role, content }}), got {what}"
            )));
        }
        let elements = reader.elements().map_err(internal)?;
        elements
            .into_iter()
            .enumerate()
            .map(|(at, mut element)| {
                Message::deserialize(&mut element)
                    .map_err(|err| refused(format!("conversation[{at}]: {}", err.0)))
            })
            .collect()
    })();
    codec.recycle(packed);
    read.or_throw(env)
}
