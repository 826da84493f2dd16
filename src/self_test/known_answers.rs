//! The known answers of the power-on self-test: one case of each of pat-go's
//! issuance vector files, as the hex strings of the file (so a search finds
//! them there), decoded at compile time.
//!
//! Each constant is case 3 (counting from 0) of its file: the case whose
//! challenge is the shortest (no redemption context, no origin info), which
//! keeps the flash small. The unit tests (`tests.rs`) check every field
//! against the file. Every field is public data: the issuer's public key, a
//! challenge, and a nonce and blinds that belong to no real token.
//!
//! They are `const` items, not `static` ones, and only the self-test of
//! their type names them, so a firmware links only the data of the
//! self-tests it calls.

use crate::crypto::blind_rsa::{MODULUS_LEN, SALT_LEN};
use crate::hex::decode;
use crate::wire::token_type::NONCE_LEN;

/// A case of a privately verifiable type (0x0001, 0x0005), field by field;
/// the vector file's name of each field is in brackets.
pub(super) struct PrivateAnswer<'a> {
    /// The issuer's token key, the serialized VOPRF public key (`pkS`).
    pub(super) token_key: &'a [u8],
    /// The encoded TokenChallenge (`token_challenge`).
    pub(super) challenge: &'a [u8],
    /// The token nonce (`nonce`).
    pub(super) nonce: &'a [u8; NONCE_LEN],
    /// The serialized VOPRF blind (`blind`).
    pub(super) blind: &'a [u8],
    /// The encoded TokenRequest (`token_request`).
    pub(super) request: &'a [u8],
    /// The encoded TokenResponse (`token_response`).
    pub(super) response: &'a [u8],
    /// The encoded Token (`token`).
    pub(super) token: &'a [u8],
}

/// A case of type 0x0002, field by field; the vector file's name of each
/// field is in brackets.
pub(super) struct PublicAnswer<'a> {
    /// The issuer's token key, the RSASSA-PSS SPKI (`pkS`).
    pub(super) token_key: &'a [u8],
    /// The encoded TokenChallenge (`token_challenge`).
    pub(super) challenge: &'a [u8],
    /// The token nonce (`nonce`).
    pub(super) nonce: &'a [u8; NONCE_LEN],
    /// The PSS salt (`salt`).
    pub(super) salt: &'a [u8; SALT_LEN],
    /// The RSA blind r, big-endian (`blind`).
    pub(super) blind: &'a [u8; MODULUS_LEN],
    /// The encoded TokenRequest (`token_request`).
    pub(super) request: &'a [u8],
    /// The encoded TokenResponse, the blind signature (`token_response`).
    pub(super) response: &'a [u8],
    /// The encoded Token (`token`).
    pub(super) token: &'a [u8],
}

/// The known answer of type 0x0001 (VOPRF(P-384, SHA-384)): case 3 of
/// `tests/vectors/pat-go/tokens/private/type1-issuance-test-vectors.json`.
pub(super) const TYPE1: PrivateAnswer<'static> = PrivateAnswer {
    token_key: &decode::<49>(concat!(
        "028cd68715caa20d19b2b20d017d6a0a42b9f2b0a47db65e5e763e23744fe14d",
        "74e374bbc93a2ec3970eb53c8aa765ee21",
    )),
    challenge: &decode::<21>("0001000e6973737565722e6578616d706c65000000"),
    nonce: &decode::<32>("2b498013e04112965b912d5ac0ab086a0d1f1c42b44de387712b93373d1237b0"),
    blind: &decode::<48>(concat!(
        "7e3243ddc98e3b73221227b4330aca7f1a580139bda84c4e028b4e2eb882ea99",
        "4084c07be80c8e3e0d074ed9efb961b4",
    )),
    request: &decode::<52>(concat!(
        "0001a5039c4264c5dd5f3de17e774ee364ad05cb1d2b009e18171f82cdd84afe",
        "d6d8e6b7f55eb26844aa4593915214365b870b53",
    )),
    response: &decode::<145>(concat!(
        "02e8dc08758edc9bfa1026cc75843c989b59afee5f83fc004c4f4f340cfe84e1",
        "c488c6c935bfb80afec4c45a5eee80f5bb63f7d91a37cac26049b3c14c6b0bde",
        "50b6c156b846e35ffb87597c8c47a13ca5574c9226a1afa848adfe788d8df46c",
        "7aeb7e65816a1a9c990989d6634481b1884d5c82657d09c82754867c3f4476a4",
        "4a2c69b53c6f64b9b640f27a6f6436de1e",
    )),
    token: &decode::<146>(concat!(
        "00012b498013e04112965b912d5ac0ab086a0d1f1c42b44de387712b93373d12",
        "37b0085cb06952044c7655b412ab7d484c97b97c48c79c568140b8d49a02ca47",
        "a9cfb0a5cfb861290c4dbd8fd9b60ee9b1a1a54cf47c98531fe253f1ed6d875d",
        "e5a595439e2fdba1abe68ba8a27638b3d6a40e5b17bc03676ee72d72b8961d07",
        "2fc8e1dbd2550dce3f117d55a498f9c20af3",
    )),
};

/// The known answer of type 0x0002 (blind RSA-2048): case 3 of
/// `tests/vectors/pat-go/tokens/type2/type2-issuance-test-vectors.json`.
pub(super) const TYPE2: PublicAnswer<'static> = PublicAnswer {
    token_key: &decode::<342>(concat!(
        "30820152303d06092a864886f70d01010a3030a00d300b060960864801650304",
        "0202a11a301806092a864886f70d010108300b0609608648016503040202a203",
        "0201300382010f003082010a0282010100cb1aed6b6a95f5b1ce013a4cfcab25",
        "b94b2e64a23034e4250a7eab43c0df3a8c12993af12b111908d4b471bec31d4b",
        "6c9ad9cdda90612a2ee903523e6de5a224d6b02f09e5c374d0cfe01d8f529c50",
        "0a78a2f67908fa682b5a2b430c81eaf1af72d7b5e794fc98a3139276879757ce",
        "453b526ef9bf6ceb99979b8423b90f4461a22af37aab0cf5733f7597abe44d31",
        "c732db68a181c6cbbe607d8c0e52e0655fd9996dc584eca0be87afbcd78a337d",
        "17b1dba9e828bbd81e291317144e7ff89f55619709b096cbb9ea474cead264c2",
        "073fe49740c01f00e109106066983d21e5f83f086e2e823c879cd43cef700d2a",
        "352a9babd612d03cad02db134b7e225a5f0203010001",
    )),
    challenge: &decode::<21>("0002000e6973737565722e6578616d706c65000000"),
    nonce: &decode::<32>("9f5ed6808de528ee1a899d9d5d0f8290a35a93e4edf6f3d01442ec41fd718c97"),
    salt: &decode::<48>(concat!(
        "2f31357264661ae8f3d98205542d5f437173b07b062797f32613564a338579d6",
        "3379f4afa031d4fb6c55d9afb6b53e4f",
    )),
    blind: &decode::<256>(concat!(
        "c181aa0093b659a196f0b537950e50e56046b7fe7762b661fbfb18b3452e54d6",
        "83d462a6ab75540d8fe67f635e37650dae7bf2f88cb78801bbb369cdcab7bed2",
        "9fa679f33be6ef9e81dc3a1ee1eb025b02f6a94692f36e943ddd5c725b4c8487",
        "4c05cc5d79df72868e316b080de345a3decc85744b3376309d4717dfc4c5cef0",
        "3c82667e84091ac1ff11b6600985f24d7a94aeee0b2af961781b88b98bd62a8a",
        "a48f8a41b3e3b89b34259ced08d82b184cba6e97de643cb3fa1ff59cca4deec9",
        "ebc5f0bd7ea283b9f0fc621ca87dbe414ecf668f2904f245df150689490a6949",
        "04a4baaac1b98f4d31ccdc50bbde98c2287c2b878fbcb8143f309cc71d30bea6",
    )),
    request: &decode::<259>(concat!(
        "00020802c5405ff1f9195e03214892418db390ebe176e623d190baeae053b850",
        "a34faf4872accbd5332ffcd66a75b8ecebe3f54a990dc28d7b13a90847bf1f7f",
        "472ff82096f11662380ecbc1a603dec3bf126334db68f3203d2c74a5fe38987b",
        "09747a6ed2bc39d89e6207dbf4afc8ea1c6cc0224c9cc69384ae149d8c34eddd",
        "16d3a97113025e4f747fab779dac8624fa7891ff11f6e8e28e525f54d8125e2d",
        "c89301a94f5ec7df26f2ff99100500ca687b43135bedc1fe8231f143bf52780d",
        "c2cd8e5df78a546a9cc37ec9235a01996cb295b1ff09016765a1748ec1d3b9af",
        "ff9a86701826151f25f0efcff68a78fd9f717f18c255f3f680e429f75bbc0e42",
        "34199c",
    )),
    response: &decode::<256>(concat!(
        "a4e67545b9dfc2a676f038dd2af296caa30b748ba1c60051045f2536da824c7b",
        "70e37e52aed5da72cb264167d96e5c5415ca123b2c15468e16bf1440a7b76490",
        "bd553213a279602326361b6fe0e48b0b6509c6121f0e3fb6661aa66d1aa420f7",
        "e1f447f34d51c0b11892a9eea0126d5a94bfc3e2619c9d82622c61985724a299",
        "462a8078d75cdc3a364760ac0a7fb1a1ca61609e0771b7b06f7e0294b4609852",
        "ecec9f94479154983599bdf0424d39eb6ccbbdb2bc75bb2a5346980614558ee4",
        "6edc07e5f7161af5badbcef07060ee37a8697b9e03c7c6a093546dcad4392e96",
        "7a4c2a59a0cd6d4c0117f54deaae4a2a03995fbd44caa376e8ca75d1cb1d0679",
    )),
    token: &decode::<354>(concat!(
        "00029f5ed6808de528ee1a899d9d5d0f8290a35a93e4edf6f3d01442ec41fd71",
        "8c97b741ec1b6fd05f1e95f8982906aec1612896d9ca97d53eef94ad3c9fe023",
        "f7a4ca572f8982a9ca248a3056186322d93ca147266121ddeb5632c07f1f71cd",
        "2708b4a6265ae28939a0e2490df99b276854c290883950f4d00f0d7b5db9066d",
        "8c209931982a743ccb7dbfe5af610e9bcc6d13b6fcecf52b261b4e6406828732",
        "63d712374bafd9e2d92a12c61716a71d8e7d9c00c365b8dd60b25af4c0285998",
        "f8ee2d0f9179bb42e6ccef8a7b3a72ca8a234eedaa5490e4e25782354881a9bf",
        "d2862c98d55c03b83de628074bc5f3b18abd847a7eb38ffff224b8a7b4c37065",
        "87a90cd2e98924ffdd5df90eb1b815d9c19cc13cf770bd02f48f9b63d8d63702",
        "920ead86fc1c157cb1f9011c0074dec1bb474a996421b1ef76588eecb73666bd",
        "59d7abafc7980c4d976e543f09c6ec099fe1ce86528fc20ee44d0cc03796d41b",
        "e33a",
    )),
};

/// The known answer of type 0x0005 (VOPRF(ristretto255, SHA-512)): case 3 of
/// `tests/vectors/pat-go/tokens/private/type5-issuance-test-vectors.json`.
pub(super) const TYPE5: PrivateAnswer<'static> = PrivateAnswer {
    token_key: &decode::<32>("4429d3c5dbc68f9280dfde3ceeb4bcc0da37c681b83065a7319e16c886d4c856"),
    challenge: &decode::<21>("0005000e6973737565722e6578616d706c65000000"),
    nonce: &decode::<32>("a53148ef0e37785a51950efc46ee1c959a9f2511f8d5570dfcd609d3001a1dbd"),
    blind: &decode::<32>("d85f5a0096304a954d4d7feba0faaa3011a004337d70197b3b607547ed2e6508"),
    request: &decode::<35>(concat!("0005f656c94386183dee559fee3953b04fb9b97dcad9b5bc1e1ec8d2513804e8", "f71b03",)),
    response: &decode::<96>(concat!(
        "6c2c459fe0975d59d4f38dcf26f81dfc28a83d45840897da03d729e805867843",
        "aae4c66edae05f2fce4b755d41c245e0841aff2a61e152515655b03eee2cab00",
        "660a5c9d4263f83e6e4cd9c7ce7ec7c0b4dd45b6fa8ae9b2d1cff124273e6d00",
    )),
    token: &decode::<162>(concat!(
        "0005a53148ef0e37785a51950efc46ee1c959a9f2511f8d5570dfcd609d3001a",
        "1dbdb2174d8c51b010f2f8d73a85a8595138f02c4082a27c5348a47679456d9e",
        "350f3fb7498d84e1b9d4f5171b1c5d238eab7d7c18cbb6829ab9a441be65bb4e",
        "9bf67147573bee5e5a5bb9b50efac2880bd281b99eaff7e681acdbbe42910674",
        "884de84f4d120f7a17f0088405174e08d08776f13836d8a64643653466302865",
        "d722",
    )),
};
