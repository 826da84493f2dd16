//! `tokens/token-test-vectors.json`: TokenChallenge → challenge digest →
//! token_input (RFC 9577 Appendix A.1).
//!
//! `token_type` is a 4-digit string ("0002"). pat-go reads it as a decimal
//! number; it is read here as the 2-byte hex code, which agrees for every
//! assigned type (1, 2, 3, 5), and the generator only writes those.
//! privacypass-ts's `auth_scheme_token_with_extensions_v1.json` writes
//! "0xda7a", read as hex after the prefix.

use std::format;
use std::string::String;

use serde_json::{Value, json};

use super::{Case, VectorError, encode_hex, expect_eq};
use pat::wire::challenge::TokenChallenge;
use pat::wire::token::TokenInput;
use pat::wire::token_type::TokenKind;

pub(crate) fn verify(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    // "0002" in pat-go's files, "0xda7a" in privacypass-ts's.
    let type_bytes = case.hex_array_0x::<2>("token_type")?;
    let issuer_name = case.hex(&["issuer_name"])?;
    let redemption_context = case.hex(&["redemption_context"])?;
    let origin_info = case.hex(&["origin_info"])?;
    let nonce = case.hex_array::<32>(&["nonce"])?;
    let key_id = case.hex_array::<32>(&["token_key_id"])?;
    let expected = case.hex(&["token_authenticator_input"])?;

    let code = u16::from_be_bytes(type_bytes);
    let outcome = (|| {
        let kind = TokenKind::from_code(code).map_err(|e| format!("token_type: {e}"))?;
        // As received: the names are opaque bytes (any that the other
        // implementations write), only the structure is checked.
        let challenge = TokenChallenge::new_opaque(code, &issuer_name, &redemption_context, &origin_info)
            .map_err(|e| format!("challenge rejected: {e}"))?;
        let input = TokenInput::new(kind, &nonce, &challenge.digest(), &key_id);
        expect_eq("token_authenticator_input", input.as_bytes(), &expected)
    })();
    Ok(outcome)
}

/// The five challenge shapes of RFC 9577 Appendix A.1, in pat-go's order.
const SHAPES: [(bool, &str); 5] =
    [(true, "origin.example"), (false, "origin.example"), (false, ""), (true, ""), (false, "foo.example,bar.example")];

const TYPES: [TokenKind; 4] =
    [TokenKind::PublicRsa2048, TokenKind::PrivateP384, TokenKind::PrivateRistretto255, TokenKind::RateLimitedRsa2048];

pub(crate) fn generate(i: usize) -> Result<Value, VectorError> {
    let (with_ctx, origin_info) = SHAPES.get(i % SHAPES.len()).copied().unwrap_or((false, ""));
    let kind = TYPES.get(i % TYPES.len()).copied().unwrap_or(TokenKind::PublicRsa2048);
    let mut random = [0u8; 96];
    getrandom::fill(&mut random).map_err(|e| VectorError::Format(format!("OS randomness failed: {e}")))?;
    let (ctx, rest) = random.split_at(32);
    let (nonce, key_id) = rest.split_at(32);
    let ctx: &[u8] = if with_ctx { ctx } else { &[] };
    let issuer_name = b"issuer.example";
    let challenge = TokenChallenge::new(kind.code(), issuer_name, ctx, origin_info.as_bytes())
        .map_err(|e| VectorError::Format(format!("generated an invalid challenge: {e}")))?;
    let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
    let key_id: [u8; 32] = key_id.try_into().unwrap_or_default();
    let input = TokenInput::new(kind, &nonce, &challenge.digest(), &key_id);
    let comment = format!(
        "//   token_type({:04x}), issuer_name(issuer.example),\n//   origin_info({origin_info}), redemption_context({})",
        kind.code(),
        if with_ctx { "non-empty" } else { "empty" }
    );
    Ok(json!({
        "comment": comment,
        "token_type": format!("{:04x}", kind.code()),
        "issuer_name": encode_hex(issuer_name),
        "redemption_context": encode_hex(ctx),
        "origin_info": encode_hex(origin_info.as_bytes()),
        "nonce": encode_hex(&nonce),
        "token_key_id": encode_hex(&key_id),
        "token_authenticator_input": encode_hex(input.as_bytes()),
    }))
}
