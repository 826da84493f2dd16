/*
 * The type-0xDA7A client role alone, for its flash: what nostd-check's
 * client_type_da7a binary does. A request through the randomness callback,
 * then privacypass-ts's known-answer request and its finalize, the token
 * compared with the vector's. Exit status 0 on a match.
 */
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "rt.h"

int app_main(void)
{
    const struct da7a_kat *v = &da7a_kat;
    uint8_t request[PAT_TYPEDA7A_REQUEST_FIXED_LEN + 64], state[PAT_TYPEDA7A_STATE_LEN], token[PAT_TYPEDA7A_TOKEN_LEN];
    if (v->request.n > sizeof request || v->token.n != sizeof token) {
        return 1;
    }
    struct test_rng rng = {7, 0};
    if (pat_typeda7a_request(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n,
                             test_rng, &rng, request, v->request.n, state, sizeof state) != (int32_t)v->request.n) {
        return 1;
    }
    pat_wipe(state, sizeof state);
    if (pat_typeda7a_request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n,
                                  v->nonce.p, v->nonce.n, v->salt.p, v->salt.n, v->blind.p, v->blind.n, request,
                                  v->request.n, state, sizeof state) != (int32_t)v->request.n) {
        return 1;
    }
    if (pat_typeda7a_finalize(v->pk.p, v->pk.n, state, sizeof state, v->extensions.p, v->extensions.n, v->response.p,
                              v->response.n, token, sizeof token) != PAT_TYPEDA7A_TOKEN_LEN) {
        return 1;
    }
    for (size_t i = 0; i < sizeof token; i++) {
        if (token[i] != v->token.p[i]) {
            return 1;
        }
    }
    return 0;
}
