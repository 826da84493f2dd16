//! What the host tests share.

use pat::rand_core::{TryCryptoRng, TryRng};

/// A deterministic generator (splitmix64), seeded per test.
pub(crate) struct TestRng(pub(crate) u64);

impl TryRng for TestRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let [a, b, c, d, ..] = self.try_next_u64()?.to_le_bytes();
        Ok(u32::from_le_bytes([a, b, c, d]))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl TryCryptoRng for TestRng {}

/// The bytes of the hex field `name` of the first case of a pat-go token
/// vector file (`tests/vectors/pat-go/tokens/<file>`).
pub(crate) fn vector_field(file: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/../tests/vectors/pat-go/tokens/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let key = format!("\"{name}\"");
    let rest = &text[text.find(&key).unwrap() + key.len()..];
    let start = rest.find('"').unwrap() + 1;
    let hex = &rest[start..start + rest[start..].find('"').unwrap()];
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}
