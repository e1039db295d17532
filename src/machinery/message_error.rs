//! An error that is only its message, for a binding's serde reader or writer of its
//! language's values.

use std::fmt;

/// Why a value could not be read or written by a binding's own serde `Deserializer` or
/// `Serializer`: a message in serde's words, which the binding shows as it is.
///
/// ```
/// use mentor_context::machinery::MessageError;
/// use serde::de::Error as _;
///
/// let err = MessageError::custom("missing field `content`");
/// assert_eq!(err.to_string(), "missing field `content`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageError(pub String);

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MessageError {}

impl serde::de::Error for MessageError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        MessageError(msg.to_string())
    }
}

impl serde::ser::Error for MessageError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        MessageError(msg.to_string())
    }
}
