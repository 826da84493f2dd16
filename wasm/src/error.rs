//! Library errors as thrown JavaScript errors.
//!
//! A [`pat::Error`] reaches JavaScript as an `Error` whose `name` is
//! `"PatError"`, whose `message` is the library's `Display` text and whose
//! `code` is the name of the variant (`"Verification"`, `"InvalidLength"`,
//! `"WrongTokenType"`, ...), the same string for every value of a variant,
//! so callers can branch on it. An RNG failure that came from a JavaScript
//! exception carries that exception as `cause`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `Error` class.
    #[wasm_bindgen(js_name = Error)]
    type ErrorObject;

    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> ErrorObject;

    #[wasm_bindgen(method, setter = name)]
    fn set_name(this: &ErrorObject, name: &str);

    #[wasm_bindgen(method, setter = code)]
    fn set_code(this: &ErrorObject, code: &str);

    #[wasm_bindgen(method, setter = cause)]
    fn set_cause(this: &ErrorObject, cause: &JsValue);
}

/// The name every error of this package carries.
pub const ERROR_NAME: &str = "PatError";

/// The stable code of an error: the name of its variant, the leading
/// identifier of its derived `Debug` text (`InvalidLength(Key)` gives
/// `InvalidLength`, `WrongTokenType { .. }` gives `WrongTokenType`). Taken
/// from `Debug` so that a variant the library adds later gets its own name
/// without a table here falling behind.
pub fn code_of(error: &pat::Error) -> String {
    format!("{error:?}").chars().take_while(char::is_ascii_alphanumeric).collect()
}

/// The JavaScript error for `error`, with `cause` attached when there is one.
pub fn to_js(error: pat::Error, cause: Option<JsValue>) -> JsValue {
    let object = ErrorObject::new(&error.to_string());
    object.set_name(ERROR_NAME);
    object.set_code(&code_of(&error));
    if let Some(cause) = cause {
        object.set_cause(&cause);
    }
    object.into()
}

/// [`to_js`] without a cause, for `map_err`.
pub fn js(error: pat::Error) -> JsValue {
    to_js(error, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pat::{Error, Field, RngCode};

    #[test]
    fn codes_are_variant_names() {
        assert_eq!(code_of(&Error::Verification), "Verification");
        assert_eq!(code_of(&Error::InvalidLength(Field::Key)), "InvalidLength");
        assert_eq!(code_of(&Error::WrongTokenType { expected: 1, found: 2 }), "WrongTokenType");
        assert_eq!(code_of(&Error::Rng(RngCode::EXHAUSTED)), "Rng");
        assert_eq!(code_of(&Error::UnknownTokenType(7)), "UnknownTokenType");
    }

    #[test]
    fn one_code_per_variant() {
        // Different payloads of one variant share its code.
        assert_eq!(code_of(&Error::InvalidValue(Field::IssuerName)), code_of(&Error::InvalidValue(Field::OriginInfo)));
        assert_ne!(code_of(&Error::Truncated), code_of(&Error::TrailingBytes));
    }
}
