/*
 * Known-answer cases for the C firmware, and the deterministic test
 * generator. The case data (kat_data.c, kat_data.h) is generated from
 * pat-go's JSON vector files by gen_kat.py at build time.
 */
#ifndef KAT_H
#define KAT_H

#include <stddef.h>
#include <stdint.h>

struct bytes {
    const uint8_t *p;
    size_t n;
};

/* One issuance case of a vector file. `salt` is empty except for type
 * 0x0002, whose blind is left-padded with zeros to 256 bytes. */
struct kat_case {
    uint16_t type;
    const char *file;
    unsigned index;
    struct bytes pk, challenge, nonce, blind, salt, request, response, token;
};

/* ARC (draft-ietf-privacypass-arc-crypto-01): the draft's vectors. `run`
 * is what pat_arc_run_with writes from `seed` and the two contexts; `state`
 * and `response` finalize into `credential` under `pk`; `challenge` is an
 * ARC TokenChallenge for the client calls. */
struct arc_kat {
    struct bytes seed, request_context, presentation_context, pk, state, response, credential, challenge, run;
};

/* An amortized batch of pat-go's (types 0x0001 and 0x0005; gen_kat.py's
 * amortized_data): the nonces, blinds and tokens one after the other. */
struct batch_kat {
    struct bytes pk, challenge, nonces, blinds, request, response, tokens;
};

/* A generic batch of pat-go's (gen_kat.py's generic_data): the entries'
 * randomness, the request, the response, and the tokens one after the
 * other; the entries themselves are in generic_challenges and generic_keys. */
struct generic_kat {
    struct bytes randomness, request, response, tokens;
};

/* ACT (type 0xE5AD, L = 8): the appendix run and the client calls' inputs
 * and outputs (gen_kat.py's act_data); act_numbers holds c, s, t and the
 * balance left. */
struct act_kat {
    struct bytes seed, domain_separator, ctx, run, token_key, state, response, credential, refund_state, token,
        refund, next;
};

/* ATHM (type 0xC07E, 4 buckets): the reference's vectors (gen_kat.py's
 * athm_data says what each field holds). */
struct athm_kat {
    struct bytes deployment_id, token_key, request_seed, request, request_state, finalize_seed, state, response,
        token;
};

/* A type with public metadata: 0xDA7A (privacypass-ts's published case,
 * the blind left-padded to 256 bytes) or 0xDA7B (pat's own case; no salt,
 * `salt` empty). */
struct ext_kat {
    struct bytes pk, challenge, extensions, nonce, salt, blind, request, response, token;
};

/* NOT a random number generator: xorshift32 from a fixed seed, so that
 * runs repeat exactly. It stands in for a TRNG only to exercise the random
 * entry points (pat_typeN_request) in tests; never use it for tokens. */
struct test_rng {
    uint32_t state; /* non-zero */
    uint32_t bytes; /* bytes handed out so far */
};

int32_t test_rng(void *ctx, uint8_t *buf, size_t len);

#endif
