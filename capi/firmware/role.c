/*
 * A client role alone, for its flash: built once per token type with
 * -DROLE_TYPE=1, 2 or 5. It does what nostd-check's client_typeN binaries
 * do: a request through the randomness callback (what a device runs), then
 * the known-answer request and the finalize of case 0 of the type's pat-go
 * file, and the token compared with the vector's. Exit status 0 on a match.
 */
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "rt.h"

#if ROLE_TYPE == 1
#define CASE kat_type1_case0
#define REQUEST_LEN PAT_TYPE1_REQUEST_LEN
#define STATE_LEN PAT_TYPE1_STATE_LEN
#define TOKEN_LEN PAT_TYPE1_TOKEN_LEN
#define REQUEST pat_type1_request
#define FINALIZE pat_type1_finalize
#elif ROLE_TYPE == 2
#define CASE kat_type2_case0
#define REQUEST_LEN PAT_TYPE2_REQUEST_LEN
#define STATE_LEN PAT_TYPE2_STATE_LEN
#define TOKEN_LEN PAT_TYPE2_TOKEN_LEN
#define REQUEST pat_type2_request
#define FINALIZE pat_type2_finalize
#elif ROLE_TYPE == 5
#define CASE kat_type5_case0
#define REQUEST_LEN PAT_TYPE5_REQUEST_LEN
#define STATE_LEN PAT_TYPE5_STATE_LEN
#define TOKEN_LEN PAT_TYPE5_TOKEN_LEN
#define REQUEST pat_type5_request
#define FINALIZE pat_type5_finalize
#else
#error "ROLE_TYPE must be 1, 2 or 5"
#endif

int app_main(void)
{
    const struct kat_case *c = &CASE;
    uint8_t request[REQUEST_LEN], state[STATE_LEN], token[TOKEN_LEN];

    struct test_rng rng = {7, 0};
    if (REQUEST(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, test_rng, &rng, request, sizeof request, state,
                sizeof state) != REQUEST_LEN) {
        return 1;
    }
    /* That state is never finalized here: wipe it, as a device would. */
    pat_wipe(state, sizeof state);

#if ROLE_TYPE == 2
    int32_t rc = pat_type2_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                        c->salt.p, c->salt.n, c->blind.p, c->blind.n, request, sizeof request,
                                        state, sizeof state);
#elif ROLE_TYPE == 1
    int32_t rc = pat_type1_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                        c->blind.p, c->blind.n, request, sizeof request, state, sizeof state);
#else
    int32_t rc = pat_type5_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                        c->blind.p, c->blind.n, request, sizeof request, state, sizeof state);
#endif
    if (rc != REQUEST_LEN) {
        return 1;
    }
    if (FINALIZE(c->pk.p, c->pk.n, state, sizeof state, c->response.p, c->response.n, token, sizeof token) !=
            TOKEN_LEN ||
        c->token.n != TOKEN_LEN) {
        return 1;
    }
    for (size_t i = 0; i < TOKEN_LEN; i++) {
        if (token[i] != c->token.p[i]) {
            return 1;
        }
    }
    return 0;
}
