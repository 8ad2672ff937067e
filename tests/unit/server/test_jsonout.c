/*
 * test_jsonout.c - server/jsonout: the fast compact writer must produce the
 * text of json_dumps(j, JSON_COMPACT) byte for byte (clients, golden files
 * and the store all see it). Table-driven: each row is numbered so a
 * failure names it; then random trees from a fixed-seed PRNG, and the
 * buffer's move from the stack to the heap.
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

#include "jsonout.h"

static void same_as_jansson(int row, const json_t *v)
{
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    char *got = wrd_json_text(v);
    if (want == NULL || got == NULL || strcmp(want, got) != 0)
        fail_msg("row %d: jansson writes\n  %s\nwrd_json_text writes\n  %s", row,
                 want ? want : "(null)", got ? got : "(null)");
    free(want);
    free(got);
}

static const struct {
    int row;
    const char *json;
} rows[] = {
    { 1, "{}" },
    { 2, "[]" },
    { 3, "{\"board\":\"x..o.....\",\"turn\":\"x\",\"winner\":null,\"moves\":2}" },
    { 4, "{\"z\":1,\"a\":2,\"m\":[3,{\"y\":true,\"b\":false}]}" },        /* insertion order */
    { 5, "[0,-1,9223372036854775807,-9223372036854775808,42]" },
    { 6, "[1.5,0.1,-0.0,3.0,1e300,1e-7,123456789.125,2.5e-300,100000.0]" },
    { 7, "[\"quote \\\" backslash \\\\ slash /\"]" },
    { 8, "[\"\\b\\f\\n\\r\\t \\u0001 \\u001f \\u007f\"]" },
    { 9, "[\"caf\\u00e9 \\u2028 \\ud83d\\ude00 Braine-l'Alleud\"]" },
    { 10, "{\"k\\\"ey\\n\":\"v\",\"\":\"\"}" },
    { 11, "[[[[[[[[]]]]]]],{\"a\":{\"b\":{\"c\":{}}}}]" },
    { 12, "{\"type\":\"patch\",\"ops\":[{\"op\":\"replace\",\"path\":\"/board\","
          "\"value\":\"....x....\"}],\"events\":[{\"type\":\"marked\",\"seat\":\"x\","
          "\"cell\":4}]}" },
    { 13, "[true,false,null,\"\",0]" },
};

static void test_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_error_t e;
        json_t *v = json_loads(rows[i].json, JSON_DECODE_ANY, &e);
        if (v == NULL)
            fail_msg("row %d: test data does not parse: %s", rows[i].row, e.text);
        same_as_jansson(rows[i].row, v);
        json_decref(v);
    }
    /* 14) a string with an embedded NUL (json_stringn) */
    json_t *s = json_stringn("a\0b", 3);
    same_as_jansson(14, s);
    json_decref(s);
}

static uint64_t rng = 88172645463325252ull;

static unsigned next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

static json_t *random_tree(int depth)
{
    static const char *const strs[] = { "a", "Waterloo", "H-12", "\"q\"", "\\", "\n\t",
                                        "\xc3\xa9t\xc3\xa9", "" };
    switch (depth > 4 ? next() % 5 : next() % 8) {
    case 0:
        return json_integer((json_int_t)next() - (1 << 20));
    case 1:
        return json_real((double)next() / 7.0);
    case 2:
        return json_string(strs[next() % 8]);
    case 3:
        return next() % 2 ? json_true() : json_null();
    case 4:
        return json_false();
    case 5:
    case 6: {
        json_t *o = json_object();
        int n = (int)(next() % 6);
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "%s%u", strs[next() % 8], next() % 100);
            json_object_set_new(o, key, random_tree(depth + 1));
        }
        return o;
    }
    default: {
        json_t *a = json_array();
        int n = (int)(next() % 6);
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_tree(depth + 1));
        return a;
    }
    }
}

static void test_random_trees(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        json_t *v = random_tree(0);
        same_as_jansson(1000 + i, v);
        json_decref(v);
    }
}

/* Escapes at every offset of a string: every byte that needs an
 * escape (each control byte, the quote, the backslash), and its nearest
 * neighbours that need none (space, '#', ']', DEL, UTF-8), at every offset
 * of strings of every length up to 40, alone or two of them, each string
 * written as jansson writes it. Row numbers: 100000 + 1000 * length +
 * offset. */
static void test_escape_offsets(void **state)
{
    (void)state;
    const unsigned char bytes[] = { 0x00, 0x01, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, '"', '\\',
                                    0x20, '!', '#', '[', ']', 0x7f };
    char s[48];
    for (size_t len = 1; len <= 40; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t k = 0; k < sizeof bytes; k++) {
                for (size_t i = 0; i < len; i++)
                    s[i] = (char)('a' + i % 26);
                s[at] = (char)bytes[k];
                s[(at + 9) % len] = (char)bytes[(k + 3) % sizeof bytes];
                json_t *v = json_stringn(s, len);
                assert_non_null(v);
                same_as_jansson((int)(100000 + 1000 * len + at), v);
                json_decref(v);
            }
    /* UTF-8 (bytes of 0x80 and above) is written as it is */
    json_t *v = json_string("\xc3\xa9t\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80 \"q\" abcdefgh\xc3\xa9");
    assert_non_null(v);
    same_as_jansson(99999, v);
    json_decref(v);
}

/* A buffer that starts on the stack keeps its bytes when it moves. */
static void test_buffer_growth(void **state)
{
    (void)state;
    char stack[8];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    wrd_buf_lit(&b, "{\"n\":");
    wrd_buf_int(&b, -1234567890123LL);
    wrd_buf_lit(&b, ",\"s\":");
    wrd_buf_str(&b, "a\"b", 3);
    wrd_buf_lit(&b, "}");
    assert_false(b.failed);
    assert_true(b.heap);
    assert_int_equal(b.len, strlen("{\"n\":-1234567890123,\"s\":\"a\\\"b\"}"));
    assert_memory_equal(b.s, "{\"n\":-1234567890123,\"s\":\"a\\\"b\"}", b.len);
    wrd_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_escape_offsets),
        cmocka_unit_test(test_buffer_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
