#!/usr/bin/env python3
"""Turns pat-go's issuance vector files (types 0x0001, 0x0002, 0x0005, the
Go and Rust files of each) into C data for the firmware: OUT.c defines one
`const struct kat_case` (kat.h) per case and the table `kat_cases`, OUT.h
declares them. Every case is its own object, so a firmware that names only
`kat_typeN_case0` (the first case of type N's Go file) links only that one.
Also emits the `Authorization` value of each type's case 0, built here from
the vector token with Python's base64 (padded base64url, RFC 9577 §2.2),
the ARC draft's vectors, the ATHM reference's client procedures, ACT's
appendix run, the first amortized batch of types 0x0001 and 0x0005, a
generic batch of types 0x0001 and 0x0002 (pat-go's), and one
case of each type with public metadata (0xDA7A: privacypass-ts's; 0xDA7B:
pat's own, tests/vectors/pat/).

    gen_kat.py VECTOR_DIR PER_FILE OUT.c OUT.h

VECTOR_DIR is tests/vectors/pat-go/tokens; PER_FILE the cases taken from
each file (from its start). Prints the number of cases written."""
import base64
import hashlib
import json
import sys

FILES = [
    (1, "private/type1-issuance-test-vectors.json"),
    (1, "private/type1-issuance-test-vectors.rust.json"),
    (2, "type2/type2-issuance-test-vectors.json"),
    (2, "type2/type2-issuance-test-vectors.rust.json"),
    (5, "private/type5-issuance-test-vectors.json"),
    (5, "private/type5-issuance-test-vectors.rust.json"),
]
FIELDS = ["pk", "challenge", "nonce", "blind", "salt", "request", "response", "token"]
JSON_NAME = {"pk": "pkS", "challenge": "token_challenge", "request": "token_request",
             "response": "token_response"}
RSA_BLIND_LEN = 256


def c_array(name, data):
    rows = [", ".join(f"0x{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return f"static const uint8_t {name}[{len(data)}] = {{\n    " + ",\n    ".join(rows) + "\n};\n"


def extended_data(path, prefix, rsa):
    """A type with public metadata as `const struct ext_kat {prefix}_kat`
    and its `Authorization` value with the extensions (padded base64url,
    as for the other types) as `{prefix}_authorization`: 0xDA7A
    (privacypass-ts's published case, `rsa`: its blind left-padded to 256
    bytes, with a salt) or 0xDA7B (pat's first case: a P-384 blind, no
    salt)."""
    with open(path) as f:
        case = json.load(f)[0]
    names = {"pk": "pkS", "challenge": "token_challenge", "extensions": "extensions", "nonce": "nonce",
             "salt": "salt", "blind": "blind", "request": "token_request", "response": "token_response",
             "token": "token"}
    out, members = [], []
    for field, key in names.items():
        if field == "salt" and not rsa:
            members.append(".salt = {NULL, 0}")
            continue
        data = bytes.fromhex(case[key])
        if field == "blind" and rsa:
            if len(data) > RSA_BLIND_LEN:
                sys.exit(f"gen_kat.py: {path}: blind longer than {RSA_BLIND_LEN} bytes")
            data = bytes(RSA_BLIND_LEN - len(data)) + data
        out.append(c_array(f"{prefix}_{field}_data", data))
        members.append(f".{field} = {{{prefix}_{field}_data, sizeof {prefix}_{field}_data}}")
    out.append(f"const struct ext_kat {prefix}_kat = {{\n    " + ",\n    ".join(members) + ",\n};\n")
    b64 = lambda b: base64.urlsafe_b64encode(b).decode()
    value = (f'PrivateToken token="{b64(bytes.fromhex(case["token"]))}", '
             f'extensions="{b64(bytes.fromhex(case["extensions"]))}"')
    out.append(f"const char {prefix}_authorization[] = \"" + value.replace('"', '\\"') + "\";\n")
    return out


def emit(prefix, fields, struct=None):
    """`const struct {struct} {prefix}_kat` (struct defaults to
    {prefix}_kat), one array per field."""
    out = [c_array(f"{prefix}_{name}_data", data) for name, data in fields.items()]
    out.append(f"const struct {struct or prefix + '_kat'} {prefix}_kat = {{\n    " + ",\n    ".join(
        f".{n} = {{{prefix}_{n}_data, sizeof {prefix}_{n}_data}}" for n in fields) + ",\n};\n")
    return out


def amortized_data(path, prefix):
    """An amortized batch of pat-go's (its file's first case) as `const
    struct batch_kat {prefix}_kat`: the key, the challenge, the
    nonces and blinds one after the other, the request, the response and
    the tokens one after the other."""
    with open(path) as f:
        case = json.load(f)[0]
    x = bytes.fromhex
    fields = {
        "pk": x(case["pkS"]), "challenge": x(case["token_challenge"]),
        "nonces": b"".join(map(x, case["nonces"])), "blinds": b"".join(map(x, case["blinds"])),
        "request": x(case["token_request"]), "response": x(case["token_response"]),
        "tokens": b"".join(map(x, case["tokens"])),
    }
    out = emit(prefix, fields, "batch_kat")
    out.append(f"const size_t {prefix}_count = {len(case['tokens'])};\n")
    return out


def generic_data(path, index, prefix="generic"):
    """A generic batch of pat-go's (case `index` of its batched file, one
    mixing types) as `const struct generic_kat {prefix}_kat`: the entries'
    randomness in the order pat_generic_batch_request_with takes it (per
    entry nonce, then salt for type 0x0002, then blind), the request, the
    response and the tokens one after the other; and the entries' challenges,
    keys and token lengths as arrays of `{prefix}_count`."""
    with open(path) as f:
        case = json.load(f)[index]
    x = bytes.fromhex
    entries = case["issuance"]
    types = {int(e["type"], 16) for e in entries}
    if len(types) < 2 or len(entries) > 8:
        sys.exit(f"gen_kat.py: {path} case {index}: not a mixed batch of at most 8 entries")
    randomness = b"".join(x(e["nonce"]) + (x(e["salt"]) if e.get("salt") else b"") + x(e["blind"])
                          for e in entries)
    out = []
    for i, e in enumerate(entries):
        out.append(c_array(f"{prefix}_challenge{i}", x(e["token_challenge"])))
        out.append(c_array(f"{prefix}_key{i}", x(e["pkS"])))
    fields = {"randomness": randomness, "request": x(case["token_request"]),
              "response": x(case["token_response"]), "tokens": b"".join(x(e["token"]) for e in entries)}
    out += emit(prefix, fields, "generic_kat")
    out.append(f"const size_t {prefix}_count = {len(entries)};\n")
    out.append(f"const struct bytes {prefix}_challenges[] = {{" + ", ".join(
        f"{{{prefix}_challenge{i}, sizeof {prefix}_challenge{i}}}" for i in range(len(entries))) + "};\n")
    out.append(f"const struct bytes {prefix}_keys[] = {{" + ", ".join(
        f"{{{prefix}_key{i}, sizeof {prefix}_key{i}}}" for i in range(len(entries))) + "};\n")
    out.append(f"const size_t {prefix}_token_lens[] = {{" + ", ".join(
        str(len(x(e["token"]))) for e in entries) + "};\n")
    return out


def act_data(path):
    """ACT's appendix (draft-schlesinger-cfrg-act-01) as `const struct
    act_kat act_kat`: the run pat_act_run_with must write (the ten CBOR
    values), its inputs, and the client calls' inputs and outputs: the
    token key (pk_cbor without its 2-byte CBOR header), the request state
    (pre-issuance ‖ request ‖ ctx), the response, the credential, the
    refund state, a token carrying the spend proof (its challenge digest
    zero: the client's refund does not read it), the refund and the next
    credential."""
    with open(path) as f:
        v = json.load(f)[0]
    x = bytes.fromhex
    names = ("sk_cbor", "pk_cbor", "preissuance_cbor", "issuance_request_cbor", "issuance_response_cbor",
             "credit_token_cbor", "spend_proof_cbor", "prerefund_cbor", "refund_cbor", "refund_token_cbor")
    pk_cbor = x(v["pk_cbor"])
    if pk_cbor[:2] != b"\x58\x20" or len(pk_cbor) != 34 or v["L"] != 8:
        sys.exit(f"gen_kat.py: {path}: unexpected ACT shapes")
    key = pk_cbor[2:]
    fields = {
        "seed": x(v["rng_seed"]), "domain_separator": v["domain_separator"].encode(), "ctx": x(v["ctx"]),
        "run": b"".join(x(v[n]) for n in names), "token_key": key,
        "state": x(v["preissuance_cbor"]) + x(v["issuance_request_cbor"]) + x(v["ctx"]),
        "response": x(v["issuance_response_cbor"]), "credential": x(v["credit_token_cbor"]),
        "refund_state": x(v["prerefund_cbor"]),
        "token": b"\xe5\xad" + bytes(32) + hashlib.sha256(key).digest() + x(v["spend_proof_cbor"]),
        "refund": x(v["refund_cbor"]), "next": x(v["refund_token_cbor"]),
    }
    out = emit("act", fields)
    out.append(f"const uint64_t act_numbers[4] = {{{v['c']}, {v['s']}, {v['t']}, {v['remaining_balance']}}};\n")
    return out


def athm_data(path):
    """ATHM (type 0xC07E, the reference's vectors, 4 buckets) as `const
    struct athm_kat athm_kat`: the deployment id, the token key (key_gen's
    public key and proof), the token_request procedure's seed with the
    request and state pat_athm_request_with must write (0xC07E ‖ the key
    id's last byte ‖ T; the state 0x01 0x04 0xC07E ‖ r ‖ tc ‖ T ‖ key id, the
    format of pat::tokens::state), the finalize_token
    procedure's state, response and seed with the token (0xC07E ‖ key id ‖
    t ‖ P ‖ Q), and the token's `Authorization` value as
    `athm_authorization`."""
    with open(path) as f:
        procs = {p["procedure"]: p for p in json.load(f)}
    if procs["params"]["output"]["n_buckets"] != "4":
        sys.exit(f"gen_kat.py: {path}: not 4 buckets")
    key_gen, req, fin = procs["key_gen"]["output"], procs["token_request"], procs["finalize_token"]
    x = bytes.fromhex
    key_id = x(key_gen["key_id"])
    fields = {
        "deployment_id": procs["params"]["output"]["deployment_id"].encode(),
        "token_key": x(key_gen["public_key"]) + x(key_gen["public_key_proof"]),
        "request_seed": x(req["args"]["rng_seed"]),
        "request": b"\xc0\x7e" + key_id[-1:] + x(req["output"]["token_request"]),
        "request_state": b"\x01\x04\xc0\x7e" + x(req["output"]["token_context"]) + x(req["output"]["token_request"]) + key_id,
        "finalize_seed": x(fin["args"]["rng_seed"]),
        "state": b"\x01\x04\xc0\x7e" + x(fin["args"]["token_context"]) + x(fin["args"]["token_request"]) + key_id,
        "response": x(fin["args"]["token_response"]),
        "token": b"\xc0\x7e" + key_id + x(fin["output"]["token"]),
    }
    if (len(fields["token_key"]), len(fields["request"]), len(fields["state"]), len(fields["response"]),
            len(fields["token"])) != (163, 36, 133, 483, 132):
        sys.exit(f"gen_kat.py: {path}: unexpected ATHM sizes")
    out = emit("athm", fields)
    value = 'PrivateToken token="' + base64.urlsafe_b64encode(fields["token"]).decode() + '"'
    out.append("const char athm_authorization[] = \"" + value.replace('"', '\\"') + "\";\n")
    return out


def arc_data(path):
    """ARC (draft-ietf-privacypass-arc-crypto-01): the draft's vectors as the
    firmware uses them. `arc_run` is what pat_arc_run_with must write from
    the draft's seed and contexts (secret key 128 ‖ public key 99 ‖ request
    state 162 ‖ request 226 ‖ response 454 ‖ credential 131 ‖ two
    presentations of limit 2); the rest feeds the client calls: the public
    key, the request state, the response and the credential they give, and
    an ARC TokenChallenge (arc-protocol-01 §6: RFC 9577's fields, type
    0xE5AC, then an empty credential_context)."""
    with open(path) as f:
        g = json.load(f)["ARCV1-P256"]
    h = lambda group, *fields: b"".join(bytes.fromhex(g[group][x]) for x in fields)
    sk = h("ServerKey", "x0", "x1", "x2", "xb")
    pk = h("ServerKey", "X0", "X1", "X2")
    state = h("CredentialRequest", "m1", "r1", "r2", "m1_enc", "m2_enc")
    request = h("CredentialRequest", "m1_enc", "m2_enc", "proof")
    response = h("CredentialResponse", "U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof")
    credential = h("Credential", "m1", "U", "U_prime", "X1")
    # The file's proof field is the presentation's rest: D_0 and then the proof.
    presentation = lambda p: h(p, "U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof")
    run = sk + pk + state + request + response + credential + presentation("Presentation1") + presentation("Presentation2")
    if len(run) != 1200 + 2 * 486 or int(g["Presentation1"]["nonce"], 16) != 0 or int(g["Presentation2"]["nonce"], 16) != 1:
        sys.exit(f"gen_kat.py: {path}: unexpected ARC vector shapes")
    issuer, origin = b"issuer.example", b"origin.example"
    challenge = (0xE5AC).to_bytes(2, "big") + len(issuer).to_bytes(2, "big") + issuer + b"\x00" \
        + len(origin).to_bytes(2, "big") + origin + b"\x00"
    out = [c_array("arc_seed_data", b"test vector seed" + bytes(16)),
           c_array("arc_request_context_data", h("CredentialRequest", "request_context")),
           c_array("arc_presentation_context_data", h("Presentation1", "presentation_context"))]
    for name, data in (("pk", pk), ("state", state), ("response", response), ("credential", credential),
                       ("challenge", challenge), ("run", run)):
        out.append(c_array(f"arc_{name}_data", data))
    names = ("seed", "request_context", "presentation_context", "pk", "state", "response", "credential",
             "challenge", "run")
    out.append("const struct arc_kat arc_kat = {\n    " + ",\n    ".join(
        f".{n} = {{arc_{n}_data, sizeof arc_{n}_data}}" for n in names) + ",\n};\n")
    return out


def main():
    vector_dir, per_file, out_c, out_h = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if per_file < 1:
        sys.exit("gen_kat.py: PER_FILE must be at least 1")
    body, names, first = [], [], {}
    for ty, path in FILES:
        with open(f"{vector_dir}/{path}") as f:
            cases = json.load(f)
        if len(cases) < per_file:
            sys.exit(f"gen_kat.py: {path} has {len(cases)} cases, fewer than {per_file}")
        for index, case in enumerate(cases[:per_file]):
            fields = {}
            for field in FIELDS:
                if field == "salt" and ty != 2:
                    fields[field] = b""
                    continue
                fields[field] = bytes.fromhex(case[JSON_NAME.get(field, field)])
            if ty == 2:
                # pat-go writes the RSA blind without its leading zero bytes.
                blind = fields["blind"]
                if len(blind) > RSA_BLIND_LEN:
                    sys.exit(f"gen_kat.py: {path} case {index}: blind longer than {RSA_BLIND_LEN} bytes")
                fields["blind"] = bytes(RSA_BLIND_LEN - len(blind)) + blind
            name = f"kat_type{ty}_case0" if ty not in first else f"kat_{len(names)}"
            if ty not in first:
                first[ty] = fields["token"]
            members = []
            for field in FIELDS:
                data = fields[field]
                if data:
                    body.append(c_array(f"{name}_{field}", data))
                    members.append(f".{field} = {{{name}_{field}, {len(data)}}}")
                else:
                    members.append(f".{field} = {{NULL, 0}}")
            body.append(f"const struct kat_case {name} = {{\n    .type = {ty}, .file = \"{path}\", "
                        f".index = {index},\n    " + ",\n    ".join(members) + ",\n};\n")
            names.append(name)
    for ty, token in sorted(first.items()):
        value = 'PrivateToken token="' + base64.urlsafe_b64encode(token).decode() + '"'
        literal = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        body.append(f"const char kat_type{ty}_authorization[] = {literal};\n")
    body += arc_data(f"{vector_dir}/../../arc/draft-ietf-privacypass-arc-crypto-01.json")
    body += athm_data(f"{vector_dir}/../../athm/test_vectors.json")
    body += act_data(f"{vector_dir}/../../act/draft-schlesinger-cfrg-act-01.json")
    body += amortized_data(f"{vector_dir}/amortized/type1-issuance-test-vectors.json", "batch1")
    body += amortized_data(f"{vector_dir}/amortized/type5-issuance-test-vectors.json", "batch5")
    body += generic_data(f"{vector_dir}/batched/batched-issuance-test-vectors.json", 4)
    body += extended_data(f"{vector_dir}/../../privacypass-ts/pub_verif_with_metadata_v3.json", "da7a", True)
    body += extended_data(f"{vector_dir}/../../pat/type-da7b-issuance-test-vectors.json", "da7b", False)
    body.append("const struct kat_case *const kat_cases[KAT_CASE_COUNT] = {\n    "
                + ",\n    ".join(f"&{n}" for n in names) + ",\n};\n")

    header = ["/* Generated by capi/firmware/gen_kat.py from pat-go's vector files; do not edit. */",
              "#ifndef KAT_DATA_H", "#define KAT_DATA_H", '#include "kat.h"',
              f"#define KAT_CASE_COUNT {len(names)}", f"#define KAT_PER_FILE {per_file}",
              "extern const struct kat_case *const kat_cases[KAT_CASE_COUNT];"]
    header += [f"extern const struct kat_case kat_type{ty}_case0;" for ty in sorted(first)]
    header.append("extern const struct arc_kat arc_kat;")
    header.append("extern const struct athm_kat athm_kat;")
    header.append("extern const struct act_kat act_kat;")
    header.append("extern const uint64_t act_numbers[4];")
    for prefix in ("batch1", "batch5"):
        header.append(f"extern const struct batch_kat {prefix}_kat;")
        header.append(f"extern const size_t {prefix}_count;")
    header.append("extern const struct generic_kat generic_kat;")
    header.append("extern const size_t generic_count;")
    header.append("extern const struct bytes generic_challenges[];")
    header.append("extern const struct bytes generic_keys[];")
    header.append("extern const size_t generic_token_lens[];")
    header.append("extern const char athm_authorization[];")
    for prefix in ("da7a", "da7b"):
        header.append(f"extern const struct ext_kat {prefix}_kat;")
        header.append(f"extern const char {prefix}_authorization[];")
    header += [f"extern const char kat_type{ty}_authorization[];" for ty in sorted(first)]
    header.append("#endif")
    with open(out_h, "w") as f:
        f.write("\n".join(header) + "\n")
    with open(out_c, "w") as f:
        f.write("/* Generated by capi/firmware/gen_kat.py from pat-go's vector files; do not edit. */\n"
                "#include <stddef.h>\n#include \"kat_data.h\"\n\n" + "\n".join(body))
    print(len(names))


main()
