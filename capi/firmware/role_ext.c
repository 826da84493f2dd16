/*
 * A client role of a type with public metadata alone, for its flash: what
 * nostd-check's client_type_da7a (ROLE_EXT=0xDA7A) or client_type_da7b
 * (ROLE_EXT=0xDA7B) binary does. A request through the randomness
 * callback, then the known-answer request (privacypass-ts's case for
 * 0xDA7A, pat's first case for 0xDA7B) and its finalize, the token compared
 * with the vector's. Exit status 0 on a match.
 */
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "rt.h"

#if ROLE_EXT == 0xDA7A
#define KAT da7a_kat
#define STATE_LEN PAT_TYPEDA7A_STATE_LEN
#define TOKEN_LEN PAT_TYPEDA7A_TOKEN_LEN
#define REQUEST_FIXED_LEN PAT_TYPEDA7A_REQUEST_FIXED_LEN
#define REQUEST pat_typeda7a_request
#define FINALIZE pat_typeda7a_finalize
/* The deterministic request, with the PSS salt. */
#define REQUEST_WITH(v, request, state)                                                                              \
    pat_typeda7a_request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n,     \
                              v->nonce.p, v->nonce.n, v->salt.p, v->salt.n, v->blind.p, v->blind.n, request,          \
                              v->request.n, state, sizeof state)
#elif ROLE_EXT == 0xDA7B
#define KAT da7b_kat
#define STATE_LEN PAT_TYPEDA7B_STATE_LEN
#define TOKEN_LEN PAT_TYPEDA7B_TOKEN_LEN
#define REQUEST_FIXED_LEN PAT_TYPEDA7B_REQUEST_FIXED_LEN
#define REQUEST pat_typeda7b_request
#define FINALIZE pat_typeda7b_finalize
#define REQUEST_WITH(v, request, state)                                                                              \
    pat_typeda7b_request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n,     \
                              v->nonce.p, v->nonce.n, v->blind.p, v->blind.n, request, v->request.n, state,           \
                              sizeof state)
#else
#error "ROLE_EXT must be 0xDA7A or 0xDA7B"
#endif

int app_main(void)
{
    const struct ext_kat *v = &KAT;
    uint8_t request[REQUEST_FIXED_LEN + 64], state[STATE_LEN], token[TOKEN_LEN];
    if (v->request.n > sizeof request || v->token.n != sizeof token) {
        return 1;
    }
    struct test_rng rng = {7, 0};
    if (REQUEST(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n, test_rng, &rng,
                request, v->request.n, state, sizeof state) != (int32_t)v->request.n) {
        return 1;
    }
    pat_wipe(state, sizeof state);
    if (REQUEST_WITH(v, request, state) != (int32_t)v->request.n) {
        return 1;
    }
    if (FINALIZE(v->pk.p, v->pk.n, state, sizeof state, v->extensions.p, v->extensions.n, v->response.p,
                 v->response.n, token, sizeof token) != TOKEN_LEN) {
        return 1;
    }
    for (size_t i = 0; i < sizeof token; i++) {
        if (token[i] != v->token.p[i]) {
            return 1;
        }
    }
    return 0;
}
