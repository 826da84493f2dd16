/* The reader of json.h: a hand-written descent over one fixed shape. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *p;
    char *err;
    size_t err_cap;
} reader;

static int fail(reader *r, const char *what) {
    snprintf(r->err, r->err_cap, "%s near byte '%.12s'", what, r->p);
    return -1;
}

static void skip_space(reader *r) {
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t') {
        r->p++;
    }
}

static int expect(reader *r, char c) {
    skip_space(r);
    if (*r->p != c) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", c);
        return fail(r, what);
    }
    r->p++;
    return 0;
}

/* Reads a string, resolving escapes in place (\uXXXX only below 0x80,
 * which is all these files can hold); returns its start and length. */
static int read_string(reader *r, const char **out, size_t *len) {
    if (expect(r, '"') != 0) {
        return -1;
    }
    char *start = r->p;
    char *w = r->p;
    for (;;) {
        char c = *r->p++;
        if (c == '\0') {
            return fail(r, "unterminated string");
        }
        if (c == '"') {
            break;
        }
        if ((unsigned char)c < 0x20) {
            return fail(r, "control character in string");
        }
        if (c == '\\') {
            if (*r->p == '\0') {
                return fail(r, "unterminated escape");
            }
            char e = *r->p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *r->p;
                    if (h == '\0') {
                        return fail(r, "unterminated \\u escape");
                    }
                    r->p++;
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                    else return fail(r, "bad \\u escape");
                }
                if (v == 0 || v >= 0x80) {
                    return fail(r, "\\u escape outside ASCII");
                }
                c = (char)v;
                break;
            }
            default:
                return fail(r, "bad escape");
            }
        }
        *w++ = c;
    }
    *out = start;
    *len = (size_t)(w - start);
    *w = '\0'; /* w < r->p: the closing quote or an escape's room */
    return 0;
}

/* Reads a member's value: a string, or an array of strings joined in place
 * into one value (`items` counts them; 0 for a string). The joined text
 * starts where the first item started and never passes the reader, which
 * has moved beyond each item before it is copied. */
static int read_value(reader *r, json_field *f) {
    skip_space(r);
    f->items = 0;
    f->number = false;
    f->null = false;
    if (strncmp(r->p, "null", 4) == 0) {
        r->p += 4;
        f->value = "";
        f->value_len = 0;
        f->null = true;
        return 0;
    }
    if (*r->p >= '0' && *r->p <= '9') {
        /* An unsigned integer (ACT's appendix has a few): its digits, not
         * NUL-terminated (the next byte is the parser's); json_u64 reads it. */
        f->value = r->p;
        while (*r->p >= '0' && *r->p <= '9') {
            r->p++;
        }
        f->value_len = (size_t)(r->p - f->value);
        f->number = true;
        return 0;
    }
    if (*r->p != '[') {
        return read_string(r, &f->value, &f->value_len);
    }
    r->p++;
    skip_space(r);
    char *joined = NULL;
    size_t len = 0;
    if (*r->p == ']') {
        r->p++;
        f->value = "";
        f->value_len = 0;
        return 0;
    }
    for (;;) {
        const char *item;
        size_t item_len;
        if (read_string(r, &item, &item_len) != 0) {
            return -1;
        }
        if (joined == NULL) {
            joined = (char *)item;
        } else {
            memmove(joined + len, item, item_len);
        }
        len += item_len;
        f->items++;
        skip_space(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (expect(r, ']') != 0) {
            return -1;
        }
        break;
    }
    /* The joined text is NUL-terminated: the byte after it lies at or before
     * the last item's closing quote, which the reader has passed. */
    joined[len] = '\0';
    f->value = joined;
    f->value_len = len;
    return 0;
}

/* Reads one flat object of string members into `c`, after the members it
 * already holds. */
static int read_members(reader *r, json_case *c) {
    if (expect(r, '{') != 0) {
        return -1;
    }
    skip_space(r);
    if (*r->p == '}') {
        r->p++;
        return 0;
    }
    for (;;) {
        if (c->count == JSON_MAX_FIELDS) {
            return fail(r, "too many members");
        }
        json_field *f = &c->fields[c->count++];
        size_t name_len;
        if (read_string(r, &f->name, &name_len) != 0 || expect(r, ':') != 0 || read_value(r, f) != 0) {
            return -1;
        }
        skip_space(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        return expect(r, '}');
    }
}

/* Reads one flat object of string members into `c`. */
static int read_flat(reader *r, json_case *c) {
    c->count = 0;
    return read_members(r, c);
}

/* Reads `"<key>":` with exactly that key. */
static int expect_key(reader *r, const char *key) {
    const char *name;
    size_t name_len;
    if (read_string(r, &name, &name_len) != 0) {
        return -1;
    }
    if (strcmp(name, key) != 0) {
        return fail(r, "unexpected member");
    }
    return expect(r, ':');
}

int json_read_procedures(char *text, json_case *cases, char *err, size_t err_cap) {
    reader r = {text, err, err_cap};
    int n = 0;
    if (expect(&r, '[') != 0) {
        return -1;
    }
    skip_space(&r);
    if (*r.p == ']') {
        r.p++;
    } else {
        for (;;) {
            if (n == JSON_MAX_CASES) {
                return fail(&r, "too many procedures");
            }
            json_case *c = &cases[n++];
            size_t name_len;
            c->count = 0;
            if (expect(&r, '{') != 0 || expect_key(&r, "procedure") != 0 ||
                read_string(&r, &c->name, &name_len) != 0 || expect(&r, ',') != 0 || expect_key(&r, "args") != 0 ||
                read_members(&r, c) != 0 || expect(&r, ',') != 0 || expect_key(&r, "output") != 0 ||
                read_members(&r, c) != 0 || expect(&r, '}') != 0) {
                return -1;
            }
            /* One name for one value: no member in both args and output. */
            for (size_t i = 0; i < c->count; i++) {
                for (size_t j = i + 1; j < c->count; j++) {
                    if (strcmp(c->fields[i].name, c->fields[j].name) == 0) {
                        return fail(&r, "a member twice in one procedure");
                    }
                }
            }
            skip_space(&r);
            if (*r.p == ',') {
                r.p++;
                continue;
            }
            if (expect(&r, ']') != 0) {
                return -1;
            }
            break;
        }
    }
    skip_space(&r);
    if (*r.p != '\0') {
        return fail(&r, "trailing bytes");
    }
    return n;
}

int json_read_groups(char *text, const char *suite, json_case *cases, char *err, size_t err_cap) {
    reader r = {text, err, err_cap};
    int n = 0;
    const char *name;
    size_t name_len;
    if (expect(&r, '{') != 0 || read_string(&r, &name, &name_len) != 0) {
        return -1;
    }
    if (strcmp(name, suite) != 0) {
        return fail(&r, "another suite");
    }
    if (expect(&r, ':') != 0 || expect(&r, '{') != 0) {
        return -1;
    }
    skip_space(&r);
    if (*r.p == '}') {
        r.p++;
    } else {
        for (;;) {
            if (n == JSON_MAX_CASES) {
                return fail(&r, "too many groups");
            }
            json_case *c = &cases[n++];
            if (read_string(&r, &c->name, &name_len) != 0 || expect(&r, ':') != 0 || read_flat(&r, c) != 0) {
                return -1;
            }
            skip_space(&r);
            if (*r.p == ',') {
                r.p++;
                continue;
            }
            if (expect(&r, '}') != 0) {
                return -1;
            }
            break;
        }
    }
    /* One suite only. */
    if (expect(&r, '}') != 0) {
        return -1;
    }
    skip_space(&r);
    if (*r.p != '\0') {
        return fail(&r, "trailing bytes");
    }
    return n;
}

int json_read_cases(char *text, json_case *cases, char *err, size_t err_cap) {
    reader r = {text, err, err_cap};
    int n = 0;
    if (expect(&r, '[') != 0) {
        return -1;
    }
    skip_space(&r);
    if (*r.p == ']') {
        r.p++;
    } else {
        for (;;) {
            if (n == JSON_MAX_CASES) {
                return fail(&r, "too many cases");
            }
            json_case *c = &cases[n++];
            c->name = NULL;
            if (read_flat(&r, c) != 0) {
                return -1;
            }
            skip_space(&r);
            if (*r.p == ',') {
                r.p++;
                continue;
            }
            if (expect(&r, ']') != 0) {
                return -1;
            }
            break;
        }
    }
    skip_space(&r);
    if (*r.p != '\0') {
        return fail(&r, "trailing bytes");
    }
    return n;
}

int json_read_batches(char *text, json_case *cases, char *err, size_t err_cap) {
    reader r = {text, err, err_cap};
    int n = 0;
    if (expect(&r, '[') != 0) {
        return -1;
    }
    for (;;) {
        if (n == JSON_MAX_CASES) {
            return fail(&r, "too many cases");
        }
        json_case *head = &cases[n++];
        head->name = "batch";
        head->count = 0;
        bool issuance = false;
        if (expect(&r, '{') != 0) {
            return -1;
        }
        for (;;) {
            const char *name;
            size_t name_len;
            if (read_string(&r, &name, &name_len) != 0 || expect(&r, ':') != 0) {
                return -1;
            }
            if (strcmp(name, "issuance") == 0) {
                if (issuance) {
                    return fail(&r, "issuance twice");
                }
                issuance = true;
                if (expect(&r, '[') != 0) {
                    return -1;
                }
                for (;;) {
                    if (n == JSON_MAX_CASES) {
                        return fail(&r, "too many entries");
                    }
                    json_case *entry = &cases[n++];
                    entry->name = "entry";
                    if (read_flat(&r, entry) != 0) {
                        return -1;
                    }
                    skip_space(&r);
                    if (*r.p == ',') {
                        r.p++;
                        continue;
                    }
                    if (expect(&r, ']') != 0) {
                        return -1;
                    }
                    break;
                }
            } else {
                if (head->count == JSON_MAX_FIELDS) {
                    return fail(&r, "too many members");
                }
                json_field *f = &head->fields[head->count++];
                f->name = name;
                if (read_value(&r, f) != 0) {
                    return -1;
                }
            }
            skip_space(&r);
            if (*r.p == ',') {
                r.p++;
                continue;
            }
            if (expect(&r, '}') != 0) {
                return -1;
            }
            break;
        }
        if (!issuance) {
            return fail(&r, "a batch without issuance");
        }
        skip_space(&r);
        if (*r.p == ',') {
            r.p++;
            continue;
        }
        if (expect(&r, ']') != 0) {
            return -1;
        }
        break;
    }
    skip_space(&r);
    if (*r.p != '\0') {
        return fail(&r, "trailing bytes");
    }
    return n;
}

const json_field *json_get(const json_case *c, const char *name) {
    for (size_t i = 0; i < c->count; i++) {
        if (strcmp(c->fields[i].name, name) == 0) {
            return &c->fields[i];
        }
    }
    return NULL;
}

int json_u64(const json_case *c, const char *name, uint64_t *out) {
    const json_field *f = json_get(c, name);
    if (f == NULL || !f->number || f->value_len == 0 || f->value_len > 19 ||
        (f->value_len > 1 && f->value[0] == '0')) {
        return -1;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < f->value_len; i++) {
        v = v * 10 + (uint64_t)(f->value[i] - '0');
    }
    *out = v;
    return 0;
}

static int nibble(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
}

uint8_t *json_hex(const json_case *c, const char *name, size_t *len) {
    const json_field *f = json_get(c, name);
    if (f == NULL || f->number || f->null || f->value_len % 2 != 0) {
        return NULL;
    }
    size_t n = f->value_len / 2;
    uint8_t *out = malloc(n > 0 ? n : 1);
    if (out == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = nibble(f->value[2 * i]);
        int lo = nibble(f->value[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n;
    return out;
}
