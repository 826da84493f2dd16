/*
 * A small reader for the shape of pat-go's vector files: a JSON array of
 * flat objects whose values are strings, arrays of strings or unsigned
 * integers; and for the shape of ARC's
 * (the draft's allVectors.json): one object holding one suite, an object of
 * named groups, each a flat object of strings; and for ATHM's, an array of
 * procedures, each with flat `args` and `output` objects. Enough for the C tests, and
 * strict: anything else in the file is an error, never skipped silently.
 */
#ifndef PAT_TEST_JSON_H
#define PAT_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_FIELDS 32
#define JSON_MAX_CASES 64

/* One member of an object: its name and its string value (escapes
 * resolved, NUL-terminated; both point into the parsed text, which the
 * reader rewrites in place). */
typedef struct {
    const char *name;
    const char *value;
    size_t value_len;
    /* 0 for a string; for an array of strings (pat-go's batch files), the
     * number of items, whose texts `value` holds joined. */
    size_t items;
    /* An unsigned integer: `value` holds its digits, NOT NUL-terminated
     * (json_u64 reads them). */
    bool number;
    /* `null` (the privacypass crate's files write an absent salt so):
     * `value` is "", and json_hex gives NULL. */
    bool null;
} json_field;

typedef struct {
    /* The group's name (json_read_groups), else NULL. */
    const char *name;
    json_field fields[JSON_MAX_FIELDS];
    size_t count;
} json_case;

/* Parses `text` (modified in place, NUL-terminated) into at most
 * JSON_MAX_CASES cases. Returns the number of cases, or -1 with a message
 * in `err` (err_cap bytes). */
int json_read_cases(char *text, json_case *cases, char *err, size_t err_cap);

/* Parses `text` (modified in place) of the shape
 * { "<suite>": { "<group>": { "<field>": "<string>", ... }, ... } }, with
 * exactly one suite, named `suite`, into at most JSON_MAX_CASES cases, one
 * per group (its name in the case's `name`). Returns the number of groups,
 * or -1 with a message in `err`. */
int json_read_groups(char *text, const char *suite, json_case *cases, char *err, size_t err_cap);

/* Parses `text` (modified in place) of the shape of the ATHM reference's
 * vectors: [ { "procedure": "<name>", "args": { flat }, "output": { flat } },
 * ... ], members in that order, into at most JSON_MAX_CASES cases, one per
 * procedure (its name in the case's `name`, the args' and output's members
 * together, none in both). Returns the number of procedures, or -1 with a
 * message in `err`. */
int json_read_procedures(char *text, json_case *cases, char *err, size_t err_cap);

/* Parses `text` (modified in place) of the shape of the generic batch
 * files: [ { "issuance": [ { flat }, ... ], "<field>": "<string>", ... },
 * ... ], into at most JSON_MAX_CASES cases: per batch, one case named
 * "batch" with its string members, then one named "entry" per issuance
 * item. Returns the number of cases written, or -1 with a message in
 * `err`. */
int json_read_batches(char *text, json_case *cases, char *err, size_t err_cap);

/* The unsigned integer member `name` (at most 19 digits, no leading zero)
 * into *out: 0, or -1 if it is missing or not such a number. */
int json_u64(const json_case *c, const char *name, uint64_t *out);

/* The value of member `name`, or NULL. */
const json_field *json_get(const json_case *c, const char *name);

/* Decodes the hex value of member `name` into a fresh malloc'd buffer of
 * *len bytes; NULL if the member is missing or not hex. */
uint8_t *json_hex(const json_case *c, const char *name, size_t *len);

#endif
