/*
 * fuzz_jsonpatch.c - libFuzzer target for the JSON Patch module.
 *
 * The input is two JSON texts separated by the first NUL byte or newline
 * (a newline inside a pretty-printed text would split it, so seeds are
 * written compact). When both parse:
 *   1. apply(a, diff(a, b)) must succeed and give a value json_equal() to b,
 *      and diff(a, a) must be empty (else abort());
 *   2. b is also applied to a as a patch: any answer is fine, but no crash,
 *      no leak, a untouched, and a result exactly when the answer is 0.
 * When only the first parses, it is applied to itself as a patch.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonpatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decode any value; accept \u0000 so pointers and strings may hold NUL. */
/* A broken promise stops the fuzzer with a crash report. */
#define check(cond) do { if (!(cond)) abort(); } while (0)

static json_t *parse(const uint8_t *p, size_t n)
{
    return json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
}

static void apply_any(const json_t *doc, const json_t *patch)
{
    json_t *before = json_deep_copy(doc), *out = (json_t *)1;
    char err[128];
    int rc = wr_jsonpatch_apply(doc, patch, &out, err, sizeof err);
    check((rc == 0) == (out != NULL));     /* a result exactly when it succeeds */
    check(rc <= 0 && (rc == 0 || err[0] != '\0'));
    check(json_equal(before, doc));         /* the input is never changed */
    json_decref(out);
    json_decref(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = 0;
    while (cut < size && data[cut] != '\0' && data[cut] != '\n')
        cut++;
    json_t *a = parse(data, cut);
    if (a == NULL)
        return 0;
    json_t *b = cut < size ? parse(data + cut + 1, size - cut - 1) : NULL;
    if (b == NULL) {
        apply_any(a, a);
        json_decref(a);
        return 0;
    }

    json_t *patch = wr_jsonpatch_diff(a, b), *out = NULL;
    check(patch != NULL);
    check(wr_jsonpatch_apply(a, patch, &out, NULL, 0) == 0);
    check(json_equal(out, b));              /* diff then apply gives b */
    json_t *self = wr_jsonpatch_diff(a, a);
    check(self != NULL && json_array_size(self) == 0);
    json_decref(self);
    json_decref(out);
    json_decref(patch);

    apply_any(a, b);
    json_decref(a);
    json_decref(b);
    return 0;
}
