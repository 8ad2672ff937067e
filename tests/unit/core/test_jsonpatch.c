/*
 * test_jsonpatch.c - JSON Patch (RFC 6902) and JSON Pointer (RFC 6901):
 * the examples of RFC 6902 Appendix A and RFC 6901 section 5, error cases,
 * exact diffs of game-like states, and the property "apply(from, diff(from,
 * to)) == to" over hand-written states and random trees from a fixed-seed
 * PRNG. Table-driven: each row is numbered so a failure names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "jsonpatch.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS)

static json_t *load(int row, const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    if (v == NULL)
        fail_msg("row %d: test data does not parse: %s: %s", row, e.text, text);
    return v;
}

/* A short dump for failure messages; caller frees. */
static char *dump(const json_t *v)
{
    char *s = v ? json_dumps(v, DUMP_FLAGS) : NULL;
    return s ? s : strdup("(null)");
}

/* Apply; on failure check atomicity (nothing out, doc untouched, err set). */
static int apply_checked(int row, const json_t *doc, const json_t *patch, json_t **out, char *err,
                         size_t errlen)
{
    json_t *before = json_deep_copy(doc);
    int rc = wr_jsonpatch_apply(doc, patch, out, err, errlen);
    if (!json_equal(before, doc))
        fail_msg("row %d: apply modified its input document", row);
    json_decref(before);
    if (rc == 0 && *out == NULL)
        fail_msg("row %d: success without a document", row);
    if (rc != 0 && (*out != NULL || err[0] == '\0'))
        fail_msg("row %d: failure %d with a document or without a message", row, rc);
    if (rc != 0 && strncmp(err, "op ", 3) != 0 && strncmp(err, "the patch", 9) != 0)
        fail_msg("row %d: message does not name the operation: %s", row, err);
    return rc;
}

struct apply_row {
    int row;
    const char *doc, *patch;
    const char *result;     /* expected document, or NULL when an error is expected */
    int err;                /* expected error when result is NULL */
    int op;                 /* index of the failing operation ("op <op> ...") */
};

static void run_apply_rows(const struct apply_row *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *doc = load(t[i].row, t[i].doc), *patch = load(t[i].row, t[i].patch), *out = NULL;
        char err[256];
        int rc = apply_checked(t[i].row, doc, patch, &out, err, sizeof err);
        if (t[i].result != NULL) {
            json_t *want = load(t[i].row, t[i].result);
            if (rc != 0)
                fail_msg("row %d: failed (%s): %s", t[i].row, wr_jsonpatch_err_code(rc), err);
            if (!json_equal(out, want)) {
                char *got = dump(out);
                fail_msg("row %d: got %s, want %s", t[i].row, got, t[i].result);
            }
            json_decref(want);
        } else {
            if (rc != t[i].err)
                fail_msg("row %d: returned %d (%s: %s), want %s", t[i].row, rc,
                         wr_jsonpatch_err_code(rc), err, wr_jsonpatch_err_code(t[i].err));
            char prefix[32];
            snprintf(prefix, sizeof prefix, "op %d", t[i].op);
            if (t[i].err != WR_JSONPATCH_ENOTPATCH || t[i].op >= 0)
                if (strncmp(err, prefix, strlen(prefix)) != 0 ||
                    (err[strlen(prefix)] != ' ' && err[strlen(prefix)] != ':'))
                    fail_msg("row %d: message '%s' does not start with '%s'", t[i].row, err,
                             prefix);
        }
        json_decref(out);
        json_decref(doc);
        json_decref(patch);
    }
}

/* RFC 6902 Appendix A, A.1 to A.16; row n is example A.n. */
static void test_rfc6902_appendix_a(void **state)
{
    static const struct apply_row t[] = {
        /* A.1 Adding an Object Member */
        { 1, "{\"foo\": \"bar\"}", "[{\"op\": \"add\", \"path\": \"/baz\", \"value\": \"qux\"}]",
          "{\"baz\": \"qux\", \"foo\": \"bar\"}", 0, 0 },
        /* A.2 Adding an Array Element */
        { 2, "{\"foo\": [\"bar\", \"baz\"]}",
          "[{\"op\": \"add\", \"path\": \"/foo/1\", \"value\": \"qux\"}]",
          "{\"foo\": [\"bar\", \"qux\", \"baz\"]}", 0, 0 },
        /* A.3 Removing an Object Member */
        { 3, "{\"baz\": \"qux\", \"foo\": \"bar\"}", "[{\"op\": \"remove\", \"path\": \"/baz\"}]",
          "{\"foo\": \"bar\"}", 0, 0 },
        /* A.4 Removing an Array Element */
        { 4, "{\"foo\": [\"bar\", \"qux\", \"baz\"]}", "[{\"op\": \"remove\", \"path\": \"/foo/1\"}]",
          "{\"foo\": [\"bar\", \"baz\"]}", 0, 0 },
        /* A.5 Replacing a Value */
        { 5, "{\"baz\": \"qux\", \"foo\": \"bar\"}",
          "[{\"op\": \"replace\", \"path\": \"/baz\", \"value\": \"boo\"}]",
          "{\"baz\": \"boo\", \"foo\": \"bar\"}", 0, 0 },
        /* A.6 Moving a Value */
        { 6, "{\"foo\": {\"bar\": \"baz\", \"waldo\": \"fred\"}, \"qux\": {\"corge\": \"grault\"}}",
          "[{\"op\": \"move\", \"from\": \"/foo/waldo\", \"path\": \"/qux/thud\"}]",
          "{\"foo\": {\"bar\": \"baz\"}, \"qux\": {\"corge\": \"grault\", \"thud\": \"fred\"}}", 0,
          0 },
        /* A.7 Moving an Array Element */
        { 7, "{\"foo\": [\"all\", \"grass\", \"cows\", \"eat\"]}",
          "[{\"op\": \"move\", \"from\": \"/foo/1\", \"path\": \"/foo/3\"}]",
          "{\"foo\": [\"all\", \"cows\", \"eat\", \"grass\"]}", 0, 0 },
        /* A.8 Testing a Value: Success */
        { 8, "{\"baz\": \"qux\", \"foo\": [\"a\", 2, \"c\"]}",
          "[{\"op\": \"test\", \"path\": \"/baz\", \"value\": \"qux\"},"
          " {\"op\": \"test\", \"path\": \"/foo/1\", \"value\": 2}]",
          "{\"baz\": \"qux\", \"foo\": [\"a\", 2, \"c\"]}", 0, 0 },
        /* A.9 Testing a Value: Error */
        { 9, "{\"baz\": \"qux\"}", "[{\"op\": \"test\", \"path\": \"/baz\", \"value\": \"bar\"}]",
          NULL, WR_JSONPATCH_ETEST, 0 },
        /* A.10 Adding a Nested Member Object */
        { 10, "{\"foo\": \"bar\"}",
          "[{\"op\": \"add\", \"path\": \"/child\", \"value\": {\"grandchild\": {}}}]",
          "{\"foo\": \"bar\", \"child\": {\"grandchild\": {}}}", 0, 0 },
        /* A.11 Ignoring Unrecognized Elements */
        { 11, "{\"foo\": \"bar\"}",
          "[{\"op\": \"add\", \"path\": \"/baz\", \"value\": \"qux\", \"xyz\": 123}]",
          "{\"foo\": \"bar\", \"baz\": \"qux\"}", 0, 0 },
        /* A.12 Adding to a Nonexistent Target */
        { 12, "{\"foo\": \"bar\"}", "[{\"op\": \"add\", \"path\": \"/baz/bat\", \"value\": \"qux\"}]",
          NULL, WR_JSONPATCH_ENOTFOUND, 0 },
        /* A.13 Invalid JSON Patch Document: about the text (a duplicate "op"),
         * so it is checked against the parser in test_rfc6902_a13 below. */
        /* A.14 ~ Escape Ordering */
        { 14, "{\"/\": 9, \"~1\": 10}", "[{\"op\": \"test\", \"path\": \"/~01\", \"value\": 10}]",
          "{\"/\": 9, \"~1\": 10}", 0, 0 },
        /* A.15 Comparing Strings and Numbers */
        { 15, "{\"/\": 9, \"~1\": 10}", "[{\"op\": \"test\", \"path\": \"/~01\", \"value\": \"10\"}]",
          NULL, WR_JSONPATCH_ETEST, 0 },
        /* A.16 Adding an Array Value */
        { 16, "{\"foo\": [\"bar\"]}",
          "[{\"op\": \"add\", \"path\": \"/foo/-\", \"value\": [\"abc\", \"def\"]}]",
          "{\"foo\": [\"bar\", [\"abc\", \"def\"]]}", 0, 0 },
    };
    (void)state;
    run_apply_rows(t, sizeof t / sizeof t[0]);
}

/* A.13: { "op": "add", "path": "/baz", "value": "qux", "op": "remove" }. Once
 * parsed, an object has one "op", so the applier cannot see the mistake; a
 * receiver that cares parses patches with JSON_REJECT_DUPLICATES. */
static void test_rfc6902_a13(void **state)
{
    static const char text[] =
        "[{\"op\": \"add\", \"path\": \"/baz\", \"value\": \"qux\", \"op\": \"remove\"}]";
    json_error_t e;
    (void)state;
    json_t *p = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    assert_null(p);
    assert_non_null(strstr(e.text, "duplicate"));
}

static void test_apply_errors(void **state)
{
    static const struct apply_row t[] = {
        { 1, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": \"/b\"}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },                              /* remove a missing key */
        { 2, "{\"a\": 1}", "[{\"op\": \"replace\", \"path\": \"/b\", \"value\": 2}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },                              /* replace a missing key */
        { 3, "{\"a\": [1, 2]}", "[{\"op\": \"replace\", \"path\": \"/a/2\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* index out of range */
        { 4, "{\"a\": [1, 2]}", "[{\"op\": \"add\", \"path\": \"/a/3\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* add past the end + 1 */
        { 5, "{\"a\": [1, 2]}", "[{\"op\": \"remove\", \"path\": \"/a/01\"}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* leading zero */
        { 6, "{\"a\": [1, 2]}", "[{\"op\": \"add\", \"path\": \"/a/00\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },
        { 7, "{\"a\": [1, 2]}", "[{\"op\": \"remove\", \"path\": \"/a/-\"}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* "-" in remove */
        { 8, "{\"a\": [1, 2]}", "[{\"op\": \"replace\", \"path\": \"/a/-\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* "-" in replace */
        { 9, "{\"a\": [1, 2]}", "[{\"op\": \"test\", \"path\": \"/a/1\", \"value\": 3}]", NULL,
          WR_JSONPATCH_ETEST, 0 },                                  /* test failure */
        { 10, "{\"a\": {\"b\": 1}}", "[{\"op\": \"move\", \"from\": \"/a\", \"path\": \"/a/c\"}]",
          NULL, WR_JSONPATCH_EMOVE, 0 },                            /* move into own child */
        { 11, "{\"a\": {\"b\": 1}}", "[{\"op\": \"move\", \"from\": \"\", \"path\": \"/a/c\"}]",
          NULL, WR_JSONPATCH_EMOVE, 0 },                            /* the root into a child */
        { 12, "{\"a\": 1}", "[{\"op\": \"remove\"}]", NULL, WR_JSONPATCH_EMEMBER, 0 },
        { 13, "{\"a\": 1}", "[{\"op\": \"add\", \"path\": \"/b\"}]", NULL, WR_JSONPATCH_EMEMBER,
          0 },                                                      /* add without value */
        { 14, "{\"a\": 1}", "[{\"op\": \"replace\", \"path\": \"/a\"}]", NULL,
          WR_JSONPATCH_EMEMBER, 0 },
        { 15, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/a\"}]", NULL, WR_JSONPATCH_EMEMBER,
          0 },
        { 16, "{\"a\": 1}", "[{\"op\": \"move\", \"path\": \"/b\"}]", NULL, WR_JSONPATCH_EMEMBER,
          0 },                                                      /* move without from */
        { 17, "{\"a\": 1}", "[{\"op\": \"copy\", \"path\": \"/b\"}]", NULL, WR_JSONPATCH_EMEMBER,
          0 },
        { 18, "{\"a\": 1}", "[{\"op\": \"frobnicate\", \"path\": \"/a\"}]", NULL,
          WR_JSONPATCH_EBADOP, 0 },                                 /* unknown op */
        { 19, "{\"a\": 1}", "[{\"path\": \"/a\", \"value\": 1}]", NULL, WR_JSONPATCH_EBADOP, 0 },
        { 20, "{\"a\": 1}", "[{\"op\": 1, \"path\": \"/a\"}]", NULL, WR_JSONPATCH_EBADOP, 0 },
        { 21, "{\"a\": 1}", "[{\"op\": \"ADD\", \"path\": \"/b\", \"value\": 1}]", NULL,
          WR_JSONPATCH_EBADOP, 0 },                                 /* names are case-sensitive */
        { 22, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": 5}]", NULL, WR_JSONPATCH_EMEMBER,
          0 },                                                      /* non-string path */
        { 23, "{\"a\": 1}", "[{\"op\": \"copy\", \"from\": [], \"path\": \"/b\"}]", NULL,
          WR_JSONPATCH_EMEMBER, 0 },
        { 24, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": \"a\"}]", NULL,
          WR_JSONPATCH_EPOINTER, 0 },                               /* no leading "/" */
        { 25, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": \"/a~2\"}]", NULL,
          WR_JSONPATCH_EPOINTER, 0 },                               /* bad escape */
        { 26, "{\"a~\": 1}", "[{\"op\": \"remove\", \"path\": \"/a~\"}]", NULL,
          WR_JSONPATCH_EPOINTER, 0 },                               /* "~" at the end */
        { 27, "{\"a\": 1}", "{\"op\": \"remove\", \"path\": \"/a\"}", NULL,
          WR_JSONPATCH_ENOTPATCH, -1 },                             /* not an array */
        { 28, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/a\", \"value\": 1}, 7]", NULL,
          WR_JSONPATCH_ENOTPATCH, 1 },                              /* op not an object */
        { 29, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": \"\"}]", NULL, WR_JSONPATCH_EROOT,
          0 },
        { 30, "{\"a\": 1}", "[{\"op\": \"add\", \"path\": \"/a/b\", \"value\": 1}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },                              /* parent is a number */
        { 31, "{\"a\": 1}",
          "[{\"op\": \"add\", \"path\": \"/x\", \"value\": 1},"
          " {\"op\": \"remove\", \"path\": \"/nope\"}]",
          NULL, WR_JSONPATCH_ENOTFOUND, 1 },                        /* all or nothing */
        { 32, "{\"a\": 1}", "[{\"op\": \"copy\", \"from\": \"/b\", \"path\": \"/c\"}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },
        { 33, "{\"a\": 1}", "[{\"op\": \"move\", \"from\": \"/b\", \"path\": \"/c\"}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },
        { 34, "{\"a\": [1]}", "[{\"op\": \"remove\", \"path\": \"/a/-1\"}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },
        { 35, "{\"a\": [1]}", "[{\"op\": \"remove\", \"path\": \"/a/0x0\"}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },
        { 36, "{\"a\": [1]}", "[{\"op\": \"remove\", \"path\": \"/a/ 0\"}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },
        { 37, "{\"a\": [1]}", "[{\"op\": \"add\", \"path\": \"/a/5/x\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* out of range on the way */
        { 38, "{\"a\": [1]}", "[{\"op\": \"add\", \"path\": \"/a/99999999999999999999\", "
          "\"value\": 0}]", NULL, WR_JSONPATCH_EINDEX, 0 },         /* huge index */
        { 39, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/b\", \"value\": 1}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },                              /* test of nothing */
        { 40, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/a\", \"value\": \"1\"}]", NULL,
          WR_JSONPATCH_ETEST, 0 },
        { 41, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/a\", \"value\": 1.5}]", NULL,
          WR_JSONPATCH_ETEST, 0 },
        { 42, "{\"a\": {\"b\": [1]}}", "[{\"op\": \"test\", \"path\": \"/a\", "
          "\"value\": {\"b\": [1], \"c\": 2}}]", NULL, WR_JSONPATCH_ETEST, 0 },
        { 43, "[1, 2]", "[{\"op\": \"add\", \"path\": \"/-/x\", \"value\": 0}]", NULL,
          WR_JSONPATCH_EINDEX, 0 },                                 /* "-" on the way */
        { 44, "\"s\"", "[{\"op\": \"remove\", \"path\": \"/0\"}]", NULL,
          WR_JSONPATCH_ENOTFOUND, 0 },                              /* into a scalar root */
        { 45, "{\"a\": 1}",
          "[{\"op\": \"test\", \"path\": \"/a\", \"value\": 1},"
          " {\"op\": \"add\", \"path\": \"/b\", \"value\": 2},"
          " {\"op\": \"test\", \"path\": \"/b\", \"value\": 3}]",
          NULL, WR_JSONPATCH_ETEST, 2 },
    };
    (void)state;
    run_apply_rows(t, sizeof t / sizeof t[0]);
}

/* What the RFC allows beyond Appendix A, and what this module decided. */
static void test_apply_more(void **state)
{
    static const struct apply_row t[] = {
        { 1, "{\"a\": 1}", "[]", "{\"a\": 1}", 0, 0 },                    /* empty patch */
        { 2, "{\"a\": 1}", "[{\"op\": \"replace\", \"path\": \"\", \"value\": [1]}]", "[1]", 0,
          0 },                                                            /* replace the root */
        { 3, "{\"a\": 1}", "[{\"op\": \"add\", \"path\": \"\", \"value\": null}]", "null", 0, 0 },
        { 4, "{}", "[{\"op\": \"add\", \"path\": \"/a~1b\", \"value\": 1},"
          " {\"op\": \"add\", \"path\": \"/m~0n\", \"value\": 2},"
          " {\"op\": \"add\", \"path\": \"/~01\", \"value\": 3}]",
          "{\"a/b\": 1, \"m~n\": 2, \"~1\": 3}", 0, 0 },                  /* escapes */
        { 5, "{}", "[{\"op\": \"add\", \"path\": \"/\", \"value\": 1}]", "{\"\": 1}", 0, 0 },
        { 6, "{\"\": {\"\": 1}}", "[{\"op\": \"replace\", \"path\": \"//\", \"value\": 2}]",
          "{\"\": {\"\": 2}}", 0, 0 },                                    /* empty keys */
        { 7, "[1, 2]", "[{\"op\": \"add\", \"path\": \"/-\", \"value\": 3},"
          " {\"op\": \"add\", \"path\": \"/0\", \"value\": 0},"
          " {\"op\": \"add\", \"path\": \"/4\", \"value\": 4}]",
          "[0, 1, 2, 3, 4]", 0, 0 },
        { 8, "{\"a\": 1}", "[{\"op\": \"add\", \"path\": \"/a\", \"value\": 2}]", "{\"a\": 2}", 0,
          0 },                                                            /* add replaces */
        { 9, "{\"a\": {\"x\": 1}}", "[{\"op\": \"copy\", \"from\": \"/a\", \"path\": \"/a/b\"}]",
          "{\"a\": {\"x\": 1, \"b\": {\"x\": 1}}}", 0, 0 },               /* copy into itself */
        { 10, "{\"a\": 1}", "[{\"op\": \"move\", \"from\": \"/a\", \"path\": \"/a\"}]",
          "{\"a\": 1}", 0, 0 },                                           /* move onto itself */
        { 11, "{\"a\": 1}", "[{\"op\": \"move\", \"from\": \"/a\", \"path\": \"/ab\"}]",
          "{\"ab\": 1}", 0, 0 },                                          /* a sibling, not a child */
        { 12, "{\"a\": {\"b\": {\"c\": 1}}}",
          "[{\"op\": \"move\", \"from\": \"/a/b\", \"path\": \"/a\"}]", "{\"a\": {\"c\": 1}}", 0,
          0 },                                                            /* a child to its parent */
        { 13, "{\"a\": 1}", "[{\"op\": \"test\", \"path\": \"/a\", \"value\": 1.0}]",
          "{\"a\": 1}", 0, 0 },                                           /* numbers by value */
        { 14, "{\"a\": [1.0, {\"x\": 2}]}",
          "[{\"op\": \"test\", \"path\": \"\", \"value\": {\"a\": [1, {\"x\": 2.0}]}}]",
          "{\"a\": [1.0, {\"x\": 2}]}", 0, 0 },
        { 15, "{\"a\": {\"p\": 1, \"q\": 2}}",
          "[{\"op\": \"test\", \"path\": \"/a\", \"value\": {\"q\": 2, \"p\": 1}}]",
          "{\"a\": {\"p\": 1, \"q\": 2}}", 0, 0 },                        /* key order is no matter */
        { 16, "{\"a\": [1, 2, 3]}", "[{\"op\": \"copy\", \"from\": \"/a/0\", \"path\": \"/a/-\"}]",
          "{\"a\": [1, 2, 3, 1]}", 0, 0 },
        { 17, "{\"a\": [1, 2, 3]}", "[{\"op\": \"move\", \"from\": \"/a/2\", \"path\": \"/a/0\"}]",
          "{\"a\": [3, 1, 2]}", 0, 0 },
        { 18, "{\"a\": 1}", "[{\"op\": \"move\", \"from\": \"\", \"path\": \"\"}]", "{\"a\": 1}", 0,
          0 },
        { 19, "{\"a\": 1}", "[{\"op\": \"remove\", \"path\": \"/a\", \"value\": 9, \"from\": 3}]",
          "{}", 0, 0 },                                                   /* unused members */
        { 20, "{\"units\": {\"fr-1\": {\"at\": \"X-27\"}}}",
          "[{\"op\": \"replace\", \"path\": \"/units/fr-1/at\", \"value\": \"X-28\"},"
          " {\"op\": \"add\", \"path\": \"/units/fr-1/moved\", \"value\": true}]",
          "{\"units\": {\"fr-1\": {\"at\": \"X-28\", \"moved\": true}}}", 0, 0 },
        { 21, "[[[]]]", "[{\"op\": \"add\", \"path\": \"/0/0/0\", \"value\": 1}]", "[[[1]]]", 0, 0 },
        { 22, "{\"a\": 1}", "[{\"op\": \"copy\", \"from\": \"\", \"path\": \"/b\"}]",
          "{\"a\": 1, \"b\": {\"a\": 1}}", 0, 0 },                        /* copy the root */
    };
    (void)state;
    run_apply_rows(t, sizeof t / sizeof t[0]);

    /* NULL arguments; a NULL or empty err buffer is allowed. */
    json_t *doc = load(0, "{}"), *patch = load(0, "[]"), *out = (json_t *)1;
    char err[64];
    assert_int_equal(wr_jsonpatch_apply(NULL, patch, &out, err, sizeof err), WR_JSONPATCH_EINVAL);
    assert_null(out);
    assert_int_equal(wr_jsonpatch_apply(doc, NULL, &out, NULL, 0), WR_JSONPATCH_EINVAL);
    assert_int_equal(wr_jsonpatch_apply(doc, patch, NULL, err, sizeof err), WR_JSONPATCH_EINVAL);
    json_t *bad = load(0, "[{\"op\": \"remove\", \"path\": \"/x\"}]");
    assert_int_equal(wr_jsonpatch_apply(doc, bad, &out, err, 1), WR_JSONPATCH_ENOTFOUND);
    assert_string_equal(err, "");
    assert_int_equal(wr_jsonpatch_apply(doc, bad, &out, NULL, 0), WR_JSONPATCH_ENOTFOUND);
    /* A message cut to the buffer stays terminated. */
    assert_int_equal(wr_jsonpatch_apply(doc, bad, &out, err, 8), WR_JSONPATCH_ENOTFOUND);
    assert_string_equal(err, "op 0 (r");
    /* Messages name the operation, its path and the reason. */
    static const struct { int row; const char *patch, *message; } m[] = {
        { 1, "[{\"op\": \"remove\", \"path\": \"/x\"}]",
          "op 0 (remove \"/x\"): nothing named \"x\" there" },
        { 2, "[{\"op\": \"add\", \"path\": \"/a\", \"value\": 1}, "
             "{\"op\": \"test\", \"path\": \"/a\", \"value\": [2]}]",
          "op 1 (test \"/a\"): found 1, expected [2]" },
        { 3, "[{\"op\": \"copy\", \"from\": \"/q/0\", \"path\": \"/b\"}]",
          "op 0 (copy \"/b\"): from \"/q/0\": nothing named \"q\" there" },
        { 4, "[{\"op\": \"add\", \"path\": \"/l\", \"value\": []}, "
             "{\"op\": \"add\", \"path\": \"/l/1\", \"value\": 0}]",
          "op 1 (add \"/l/1\"): index 1 is out of range" },
        { 5, "[{\"op\": \"jump\"}]", "op 0: unknown operation \"jump\"" },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        json_t *p = load(m[i].row, m[i].patch);
        char msg[256];
        if (wr_jsonpatch_apply(doc, p, &out, msg, sizeof msg) == 0 || strcmp(msg, m[i].message))
            fail_msg("row %d: message '%s', want '%s'", m[i].row, msg, m[i].message);
        json_decref(p);
    }
    /* A long value is shown cut short. */
    json_t *longdoc = load(6, "{\"a\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
                              "17, 18, 19, 20, 21, 22, 23, 24]}");
    json_t *longtest = load(6, "[{\"op\": \"test\", \"path\": \"/a\", \"value\": 1}]");
    assert_int_equal(wr_jsonpatch_apply(longdoc, longtest, &out, err, sizeof err),
                     WR_JSONPATCH_ETEST);
    char msg[256];
    assert_int_equal(wr_jsonpatch_apply(longdoc, longtest, &out, msg, sizeof msg),
                     WR_JSONPATCH_ETEST);
    if (strncmp(msg, "op 0 (test \"/a\"): found [0,1,2,3,", 32) != 0 ||
        strstr(msg, "..., expected 1") == NULL || strlen(msg) > 32 + 48 + 12)
        fail_msg("row 6: message '%s'", msg);
    json_decref(longdoc);
    json_decref(longtest);
    /* The result shares nothing with the patch. */
    json_t *addp = load(0, "[{\"op\": \"add\", \"path\": \"/v\", \"value\": {\"k\": [1]}}]");
    assert_int_equal(wr_jsonpatch_apply(doc, addp, &out, err, sizeof err), 0);
    assert_true(json_object_get(out, "v") != json_object_get(json_array_get(addp, 0), "value"));
    json_decref(out);
    json_decref(addp);
    json_decref(bad);
    json_decref(doc);
    json_decref(patch);

    /* The error table. */
    assert_string_equal(wr_jsonpatch_err_code(0), "ok");
    assert_string_equal(wr_jsonpatch_err_code(WR_JSONPATCH_EMOVE), "move_into_child");
    assert_string_equal(wr_jsonpatch_err_code(-99), "unknown");
    assert_non_null(strstr(wr_jsonpatch_err_text(WR_JSONPATCH_ETEST), "test"));
}

/* RFC 6901 section 5, and malformed pointers. */
static void test_pointer(void **state)
{
    static const char doc_text[] =
        "{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, \"e^f\": 3,"
        " \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, \"m~n\": 8}";
    static const struct { int row; const char *ptr; const char *value; int err; } t[] = {
        { 1, "", NULL, 0 },                 /* the whole document */
        { 2, "/foo", "[\"bar\", \"baz\"]", 0 },
        { 3, "/foo/0", "\"bar\"", 0 },
        { 4, "/", "0", 0 },
        { 5, "/a~1b", "1", 0 },
        { 6, "/c%d", "2", 0 },
        { 7, "/e^f", "3", 0 },
        { 8, "/g|h", "4", 0 },
        { 9, "/i\\j", "5", 0 },
        { 10, "/k\"l", "6", 0 },
        { 11, "/ ", "7", 0 },
        { 12, "/m~0n", "8", 0 },
        { 13, "foo", NULL, WR_JSONPATCH_EPOINTER },
        { 14, "/foo/2", NULL, WR_JSONPATCH_EINDEX },
        { 15, "/foo/-", NULL, WR_JSONPATCH_EINDEX },
        { 16, "/foo/01", NULL, WR_JSONPATCH_EINDEX },
        { 17, "/x", NULL, WR_JSONPATCH_ENOTFOUND },
        { 18, "/foo/0/x", NULL, WR_JSONPATCH_ENOTFOUND },
        { 19, "/m~n", NULL, WR_JSONPATCH_EPOINTER },
        { 20, "/a/b", NULL, WR_JSONPATCH_ENOTFOUND },   /* not the key "a/b" */
        { 21, "/foo/1", "\"baz\"", 0 },
    };
    (void)state;
    json_t *doc = load(0, doc_text);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *v = (json_t *)1;
        int rc = wr_jsonpointer_get(doc, t[i].ptr, &v);
        if (rc != t[i].err)
            fail_msg("row %d: get '%s' returned %d, want %d", t[i].row, t[i].ptr, rc, t[i].err);
        if (rc != 0) {
            if (v != NULL)
                fail_msg("row %d: a value with an error", t[i].row);
            continue;
        }
        json_t *want = t[i].value ? load(t[i].row, t[i].value) : json_incref(doc);
        if (!json_equal(v, want))
            fail_msg("row %d: get '%s' is not %s", t[i].row, t[i].ptr, t[i].value);
        json_decref(want);
    }
    json_t *v;
    assert_int_equal(wr_jsonpointer_get(NULL, "", &v), WR_JSONPATCH_EINVAL);
    assert_int_equal(wr_jsonpointer_get(doc, NULL, &v), WR_JSONPATCH_EINVAL);
    assert_int_equal(wr_jsonpointer_getn(doc, "/foo/0junk", 6, &v), 0);
    assert_string_equal(json_string_value(v), "bar");
    json_decref(doc);

    static const struct { int row; const char *key, *escaped; } e[] = {
        { 1, "", "" },
        { 2, "abc", "abc" },
        { 3, "a/b", "a~1b" },
        { 4, "m~n", "m~0n" },
        { 5, "~1", "~01" },                 /* A.14's order: "~" first */
        { 6, "/~", "~1~0" },
        { 7, "//~~", "~1~1~0~0" },
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        char buf[32];
        size_t n = wr_jsonpointer_escape(e[i].key, strlen(e[i].key), buf, sizeof buf);
        if (n != strlen(e[i].escaped) || strcmp(buf, e[i].escaped) != 0)
            fail_msg("row %d: escape '%s' gave '%s' (%zu)", e[i].row, e[i].key, buf, n);
    }
    char small[4];
    assert_int_equal(wr_jsonpointer_escape("a/b/c", 5, small, sizeof small), 7);
    assert_string_equal(small, "a~1");
    assert_int_equal(wr_jsonpointer_escape("a/b", 3, NULL, 0), 4);
}

/* Check the property for one pair; returns the patch's compact size. */
static size_t check_pair(int row, const json_t *from, const json_t *to)
{
    json_t *from0 = json_deep_copy(from), *to0 = json_deep_copy(to);
    json_t *patch = wr_jsonpatch_diff(from, to), *out = NULL;
    char err[256] = "";
    if (patch == NULL || !json_is_array(patch))
        fail_msg("row %d: diff failed", row);
    int rc = wr_jsonpatch_apply(from, patch, &out, err, sizeof err);
    if (rc != 0 || !json_equal(out, to)) {
        char *f = dump(from), *t = dump(to), *p = dump(patch), *o = dump(out);
        fail_msg("row %d: apply(from, diff) != to\nfrom  %s\nto    %s\npatch %s\ngot   %s\n%s",
                 row, f, t, p, o, err);
    }
    if (!json_equal(from, from0) || !json_equal(to, to0))
        fail_msg("row %d: diff or apply modified an input", row);
    /* Deterministic: the same patch, byte for byte (key order as built). */
    json_t *again = wr_jsonpatch_diff(from, to);
    char *d1 = json_dumps(patch, JSON_COMPACT), *d2 = json_dumps(again, JSON_COMPACT);
    if (d1 == NULL || d2 == NULL || strcmp(d1, d2) != 0)
        fail_msg("row %d: diff is not deterministic", row);
    size_t size = strlen(d1);
    free(d1);
    free(d2);
    /* Nothing to do between equal documents. */
    json_t *self = wr_jsonpatch_diff(from, from0), *self2 = wr_jsonpatch_diff(to, to);
    if (json_array_size(self) != 0 || json_array_size(self2) != 0 || !self || !self2)
        fail_msg("row %d: diff(x, x) is not empty", row);
    json_decref(self);
    json_decref(self2);
    json_decref(again);
    json_decref(out);
    json_decref(patch);
    json_decref(from0);
    json_decref(to0);
    return size;
}

/* Exact patches: what the diff promises for typical changes. */
static void test_diff_exact(void **state)
{
#define UNITS "\"units\": {\"al-1\": {\"at\": \"AA-25\"}, \"al-3\": {\"at\": \"W-30\"}, " \
              "\"fr-1\": {\"at\": \"X-27\"}, \"fr-2\": {\"at\": \"Y-26\", \"moved\": false}}"
#define GAME(turn, phase, units) "{\"turn\": " turn ", \"phase\": \"" phase "\", " units "}"
    static const struct { int row; const char *from, *to, *patch; } t[] = {
        { 1, "{\"a\": [1, {\"b\": null}]}", "{\"a\": [1, {\"b\": null}]}", "[]" },
        { 2, "{\"a\": 1, \"b\": 2}", "{\"b\": 3, \"c\": 4}",
          "[{\"op\": \"remove\", \"path\": \"/a\"}, {\"op\": \"replace\", \"path\": \"/b\", "
          "\"value\": 3}, {\"op\": \"add\", \"path\": \"/c\", \"value\": 4}]" },
        { 3, "{\"a/b\": 1}", "{\"a/b\": 2}",
          "[{\"op\": \"replace\", \"path\": \"/a~1b\", \"value\": 2}]" },
        { 4, "{\"m~n\": {\"x\": 1}}", "{\"m~n\": {\"x\": 2}}",
          "[{\"op\": \"replace\", \"path\": \"/m~0n/x\", \"value\": 2}]" },
        { 5, "{\"~/\": 1}", "{}", "[{\"op\": \"remove\", \"path\": \"/~0~1\"}]" },
        { 6, "[1, 2]", "[1, 2, 3, 4]",                                      /* appends */
          "[{\"op\": \"add\", \"path\": \"/2\", \"value\": 3}, "
          "{\"op\": \"add\", \"path\": \"/3\", \"value\": 4}]" },
        { 7, "[1, 2, 3, 4, 5]", "[1, 2, 4, 5]", "[{\"op\": \"remove\", \"path\": \"/2\"}]" },
        { 8, "[1, 2, 4, 5]", "[1, 2, 3, 4, 5]",
          "[{\"op\": \"add\", \"path\": \"/2\", \"value\": 3}]" },
        { 9, "[1, 2, 3]", "[1, 5, 3]", "[{\"op\": \"replace\", \"path\": \"/1\", \"value\": 5}]" },
        { 10, "[{\"a\": 1}, 2]", "[{\"a\": 2}, 2]",                         /* per index */
          "[{\"op\": \"replace\", \"path\": \"/0/a\", \"value\": 2}]" },
        { 11, "{\"a\": 1}", "[1]", "[{\"op\": \"replace\", \"path\": \"\", \"value\": [1]}]" },
        { 12, "1", "2", "[{\"op\": \"replace\", \"path\": \"\", \"value\": 2}]" },
        { 13, "{\"a\": 1}", "{\"a\": 1.0}",                                 /* json_equal */
          "[{\"op\": \"replace\", \"path\": \"/a\", \"value\": 1.0}]" },
        { 14, "{\"log\": [1, 2, 3, 4, 5, 6]}", "{\"log\": [\"x\"]}",       /* whole is shorter */
          "[{\"op\": \"replace\", \"path\": \"/log\", \"value\": [\"x\"]}]" },
        { 15, "{\"log\": [\"fr-1 X-27 X-28\", \"al-1 AA-25 AA-24\", \"c\", \"d\"]}",
          "{\"log\": [\"fr-1 X-27 X-28\", \"al-1 AA-25 AA-24\"]}",             /* removes are shorter */
          "[{\"op\": \"remove\", \"path\": \"/log/3\"}, {\"op\": \"remove\", \"path\": \"/log/2\"}]" },
        /* game-like: one unit moves */
        { 16, GAME("3", "french_move", UNITS),
          GAME("3", "french_move",
               "\"units\": {\"al-1\": {\"at\": \"AA-25\"}, \"al-3\": {\"at\": \"W-30\"}, "
               "\"fr-1\": {\"at\": \"X-28\"}, \"fr-2\": {\"at\": \"Y-26\", \"moved\": false}}"),
          "[{\"op\": \"replace\", \"path\": \"/units/fr-1/at\", \"value\": \"X-28\"}]" },
        /* a unit is eliminated, another is marked as moved */
        { 17, GAME("3", "french_move", UNITS),
          GAME("3", "french_move",
               "\"units\": {\"al-1\": {\"at\": \"AA-25\"}, "
               "\"fr-1\": {\"at\": \"X-27\", \"moved\": true}, \"fr-2\": {\"at\": \"Y-26\", "
               "\"moved\": false}}"),
          "[{\"op\": \"remove\", \"path\": \"/units/al-3\"}, "
          "{\"op\": \"add\", \"path\": \"/units/fr-1/moved\", \"value\": true}]" },
        /* the phase and turn change, two units move (keys in byte order) */
        { 18, GAME("3", "french_move", UNITS),
          GAME("4", "allied_move",
               "\"units\": {\"al-1\": {\"at\": \"AA-24\"}, \"al-3\": {\"at\": \"W-30\"}, "
               "\"fr-1\": {\"at\": \"X-27\"}, \"fr-2\": {\"at\": \"Y-27\", \"moved\": true}}"),
          "[{\"op\": \"replace\", \"path\": \"/phase\", \"value\": \"allied_move\"}, "
          "{\"op\": \"replace\", \"path\": \"/turn\", \"value\": 4}, "
          "{\"op\": \"replace\", \"path\": \"/units/al-1/at\", \"value\": \"AA-24\"}, "
          "{\"op\": \"replace\", \"path\": \"/units/fr-2/at\", \"value\": \"Y-27\"}, "
          "{\"op\": \"replace\", \"path\": \"/units/fr-2/moved\", \"value\": true}]" },
        /* a reinforcement arrives */
        { 19, "{\"units\": {\"fr-1\": {\"at\": \"X-27\"}}}",
          "{\"units\": {\"fr-1\": {\"at\": \"X-27\"}, \"fr-9\": {\"at\": \"0-46\"}}}",
          "[{\"op\": \"add\", \"path\": \"/units/fr-9\", \"value\": {\"at\": \"0-46\"}}]" },
        { 20, "{\"a\": {}}", "{\"a\": []}", "[{\"op\": \"replace\", \"path\": \"/a\", \"value\": []}]" },
        { 21, "{\"\": 1}", "{\"\": 2}", "[{\"op\": \"replace\", \"path\": \"/\", \"value\": 2}]" },
    };
#undef GAME
#undef UNITS
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *from = load(t[i].row, t[i].from), *to = load(t[i].row, t[i].to);
        json_t *want = load(t[i].row, t[i].patch), *got = wr_jsonpatch_diff(from, to);
        if (!json_equal(got, want)) {
            char *g = dump(got);
            fail_msg("row %d: diff is %s\nwant %s", t[i].row, g, t[i].patch);
        }
        check_pair(t[i].row, from, to);
        json_decref(got);
        json_decref(want);
        json_decref(from);
        json_decref(to);
    }
    assert_null(wr_jsonpatch_diff(NULL, NULL));
}

/* As deep as jansson parses (JSON_PARSER_MAX_DEPTH): a change at the
 * bottom is one operation with a long path, both ways round. */
static void test_deep_nesting(void **state)
{
    enum { DEPTH = 2000 };
    (void)state;
    for (int row = 1; row <= 2; row++) {
        json_t *a = json_integer(1), *b = json_integer(2);
        for (int i = 0; i < DEPTH; i++) {
            a = row == 1 ? json_pack("[o]", a) : json_pack("{s:o}", "~/", a);
            b = row == 1 ? json_pack("[o]", b) : json_pack("{s:o}", "~/", b);
        }
        json_t *patch = wr_jsonpatch_diff(a, b);
        assert_int_equal(json_array_size(patch), 1);
        const char *path = json_string_value(json_object_get(json_array_get(patch, 0), "path"));
        assert_int_equal(strlen(path), (size_t)DEPTH * (row == 1 ? 2 : 5));
        check_pair(row, a, b);
        json_decref(patch);
        json_decref(a);
        json_decref(b);
    }
}

/* --- random trees ------------------------------------------------------------ */

/* splitmix64 with a seed held here: the same trees on every run. */
struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned rng_below(struct rng *r, unsigned n)
{
    return (unsigned)(rng_next(r) % n);
}

static const char *const keys[] = { "a", "b", "c", "at", "units", "/", "~", "~1", "~0", "a/b",
                                    "m~n", "~/", "", "0", "-", "01", "\xc3\xa9t\xc3\xa9" };
#define NKEYS (sizeof keys / sizeof keys[0])

static json_t *random_scalar(struct rng *r)
{
    static const char *const strs[] = { "", "X-27", "Y-26", "moved", "a/b", "~", "10" };
    switch (rng_below(r, 9)) {
    case 0:
        return json_null();
    case 1:
        return json_true();
    case 2:
        return json_false();
    case 3:
        return json_integer((json_int_t)rng_below(r, 7) - 3);
    case 4:
        return json_integer((json_int_t)(rng_next(r) >> 1));
    case 5: {
        static const double reals[] = { 0.5, -1.25, 1.0, 0.0, 1e10, 3.0 };
        return json_real(reals[rng_below(r, 6)]);
    }
    default:
        return json_string(strs[rng_below(r, sizeof strs / sizeof strs[0])]);
    }
}

static json_t *random_value(struct rng *r, int depth)
{
    unsigned k = depth >= 5 ? 9 : rng_below(r, 10);
    if (k < 3) {
        json_t *o = json_object();
        for (unsigned n = rng_below(r, 6); n > 0; n--)
            json_object_set_new(o, keys[rng_below(r, NKEYS)], random_value(r, depth + 1));
        return o;
    }
    if (k < 5) {
        json_t *a = json_array();
        for (unsigned n = rng_below(r, 6); n > 0; n--)
            json_array_append_new(a, random_value(r, depth + 1));
        return a;
    }
    return random_scalar(r);
}

/* A new value like v with a few random edits. */
static json_t *mutated(struct rng *r, const json_t *v, int depth)
{
    if (rng_below(r, 100) < 8)
        return random_value(r, depth);
    if (json_is_object(v)) {
        json_t *o = json_object();
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m)
        {
            unsigned roll = rng_below(r, 10);
            if (roll == 0)
                continue;                                       /* removed */
            json_object_set_new(o, key, roll < 4 ? mutated(r, m, depth + 1) : json_deep_copy(m));
        }
        if (rng_below(r, 4) == 0)
            json_object_set_new(o, keys[rng_below(r, NKEYS)], random_value(r, depth + 1));
        return o;
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        for (size_t i = 0; i < json_array_size(v); i++) {
            unsigned roll = rng_below(r, 10);
            if (roll == 0)
                continue;
            if (roll == 1)
                json_array_append_new(a, random_value(r, depth + 1));
            json_array_append_new(a, roll < 4 ? mutated(r, json_array_get(v, i), depth + 1)
                                              : json_deep_copy(json_array_get(v, i)));
        }
        while (rng_below(r, 3) == 0)
            json_array_append_new(a, random_value(r, depth + 1));
        return a;
    }
    return rng_below(r, 3) == 0 ? random_scalar(r) : json_deep_copy(v);
}

/* Hand-written game-like states: every ordered pair is checked. */
static void test_property_game_states(void **state)
{
    static const char *const s[] = {
        "{\"turn\": 1, \"phase\": \"french_move\", \"units\": {}}",
        "{\"turn\": 1, \"phase\": \"french_move\", \"units\": {\"fr-1\": {\"at\": \"X-27\"}, "
        "\"fr-2\": {\"at\": \"Y-26\"}, \"al-1\": {\"at\": \"AA-25\"}}, \"log\": []}",
        "{\"turn\": 1, \"phase\": \"french_move\", \"units\": {\"fr-1\": {\"at\": \"X-28\", "
        "\"moved\": true}, \"fr-2\": {\"at\": \"Y-26\"}, \"al-1\": {\"at\": \"AA-25\"}}, "
        "\"log\": [\"fr-1 X-27 X-28\"]}",
        "{\"turn\": 1, \"phase\": \"french_combat\", \"units\": {\"fr-1\": {\"at\": \"X-28\"}, "
        "\"al-1\": {\"at\": \"AA-25\"}}, \"log\": [\"fr-1 X-27 X-28\", \"fr-2 eliminated\"], "
        "\"battles\": [{\"att\": [\"fr-1\"], \"def\": [\"al-1\"], \"odds\": \"1-1\"}]}",
        "{\"turn\": 2, \"phase\": \"allied_move\", \"units\": {\"fr-1\": {\"at\": \"X-28\"}, "
        "\"al-1\": {\"at\": \"BB-24\", \"moved\": true}, \"al-2\": {\"at\": \"0-46\"}}, "
        "\"log\": [\"fr-1 X-27 X-28\", \"fr-2 eliminated\", \"al-1 retreats\"], "
        "\"battles\": []}",
        "{\"turn\": 2, \"phase\": \"allied_move\", \"units\": {\"fr/1\": {\"at\": \"X-28\"}, "
        "\"al~1\": {\"at\": \"BB-24\"}}, \"log\": null}",
        "{\"turn\": 2.0, \"phase\": null, \"units\": [], \"over\": true}",
        "[]",
        "null",
    };
    enum { N = sizeof s / sizeof s[0] };
    (void)state;
    int row = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            json_t *a = load(i, s[i]), *b = load(j, s[j]);
            check_pair(++row, a, b);
            json_decref(a);
            json_decref(b);
        }
    assert_int_equal(row, N * N);
}

/* Random pairs: half independent trees, half a tree and an edited copy. */
static void test_property_random(void **state)
{
    struct rng r = { 0x5741524f4f4dull };      /* "WAROOM" */
    enum { PAIRS = 3000 };
    (void)state;
    size_t edited_bytes = 0;
    for (int row = 1; row <= PAIRS; row++) {
        json_t *from = random_value(&r, 0);
        json_t *to = row % 2 ? random_value(&r, 0) : mutated(&r, from, 0);
        size_t n = check_pair(row, from, to);
        if (row % 2 == 0)
            edited_bytes += n;
        json_decref(from);
        json_decref(to);
    }
    print_message("%d random pairs; mean patch of an edited copy %zu bytes\n", PAIRS,
                  edited_bytes / (PAIRS / 2));
}

/* Every pointer of v, escaped, into ptrs (up to max); returns the count. */
static size_t collect_pointers(const json_t *v, char *prefix, size_t len, char **ptrs, size_t n,
                               size_t max)
{
    if (n < max)
        ptrs[n++] = strndup(prefix, len);
    if (len > 200)
        return n;
    if (json_is_object(v)) {
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m)
        {
            prefix[len] = '/';
            size_t k = wr_jsonpointer_escape(key, strlen(key), prefix + len + 1, 40);
            if (k < 40)
                n = collect_pointers(m, prefix, len + 1 + k, ptrs, n, max);
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            int k = snprintf(prefix + len, 24, "/%zu", i);
            n = collect_pointers(json_array_get(v, i), prefix, len + (size_t)k, ptrs, n, max);
        }
    }
    return n;
}

/* A pointer into doc, often valid, sometimes damaged. */
static json_t *random_pointer(struct rng *r, char **ptrs, size_t n)
{
    static const char *const tails[] = { "/-", "/01", "/0", "/x", "/~2", "~", "/", "/99", "/a~1b" };
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ptrs[rng_below(r, (unsigned)n)]);
    if (rng_below(r, 3) == 0)
        strncat(buf, tails[rng_below(r, sizeof tails / sizeof tails[0])],
                sizeof buf - strlen(buf) - 1);
    if (rng_below(r, 20) == 0)
        buf[rng_below(r, (unsigned)strlen(buf) + 1)] = '\0';
    return json_string(buf);
}

/* Random operations on random documents: never a crash, always atomic, and
 * single add/replace/copy operations put the value where they say. */
static void test_random_patches(void **state)
{
    static const char *const names[] = { "add", "remove", "replace", "move", "copy", "test",
                                         "bogus" };
    struct rng r = { 42 };
    enum { ROUNDS = 4000, MAXPTR = 64 };
    (void)state;
    int ok = 0;
    for (int row = 1; row <= ROUNDS; row++) {
        json_t *doc = random_value(&r, 0), *patch = json_array();
        char *ptrs[MAXPTR], prefix[1024];
        size_t n = collect_pointers(doc, prefix, 0, ptrs, 0, MAXPTR);
        unsigned nops = 1 + rng_below(&r, 3);
        for (unsigned k = 0; k < nops; k++) {
            json_t *op = json_object();
            json_object_set_new(op, "op", json_string(names[rng_below(&r, 7)]));
            if (rng_below(&r, 30) != 0)
                json_object_set_new(op, "path", random_pointer(&r, ptrs, n));
            if (rng_below(&r, 2) == 0)
                json_object_set_new(op, "from", random_pointer(&r, ptrs, n));
            if (rng_below(&r, 10) != 0)
                json_object_set_new(op, "value", rng_below(&r, 4) ? random_value(&r, 3)
                                                                  : json_deep_copy(doc));
            json_array_append_new(patch, op);
        }
        json_t *out = NULL;
        char err[256];
        int rc = apply_checked(row, doc, patch, &out, err, sizeof err);
        if (rc == 0 && nops == 1) {
            json_t *op = json_array_get(patch, 0), *at = NULL, *src = NULL;
            const char *name = json_string_value(json_object_get(op, "op"));
            const char *path = json_string_value(json_object_get(op, "path"));
            size_t plen = strlen(path);
            int appended = plen >= 2 && strcmp(path + plen - 2, "/-") == 0;
            if (!appended && (strcmp(name, "add") == 0 || strcmp(name, "replace") == 0)) {
                if (wr_jsonpointer_get(out, path, &at) != 0 ||
                    !json_equal(at, json_object_get(op, "value")))
                    fail_msg("row %d: %s did not put the value at %s", row, name, path);
            }
            if (!appended && strcmp(name, "copy") == 0) {
                const char *from = json_string_value(json_object_get(op, "from"));
                if (wr_jsonpointer_get(doc, from, &src) != 0 ||
                    wr_jsonpointer_get(out, path, &at) != 0 || !json_equal(at, src))
                    fail_msg("row %d: copy %s -> %s differs", row, from, path);
            }
            if (strcmp(name, "test") == 0 && !json_equal(out, doc))
                fail_msg("row %d: test changed the document", row);
        }
        ok += rc == 0;
        for (size_t i = 0; i < n; i++)
            free(ptrs[i]);
        json_decref(out);
        json_decref(patch);
        json_decref(doc);
    }
    print_message("%d random patches, %d applied\n", ROUNDS, ok);
    assert_true(ok > ROUNDS / 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6902_appendix_a),
        cmocka_unit_test(test_rfc6902_a13),
        cmocka_unit_test(test_apply_errors),
        cmocka_unit_test(test_apply_more),
        cmocka_unit_test(test_pointer),
        cmocka_unit_test(test_diff_exact),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_property_game_states),
        cmocka_unit_test(test_property_random),
        cmocka_unit_test(test_random_patches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
