/*
 * test_jsonalloc.c - jansson's allocator of warroomd (server/jsonalloc.h):
 * JSON values made and dropped through it keep their contents, blocks are
 * reused from the calling thread's lists within their bound, blocks may be
 * freed on another thread and handed to free() (json_dumps' strings), and
 * a thread's lists are gone when it ends or releases them (the valgrind
 * run of this test fails on a leak). Under AddressSanitizer the allocator
 * is not used, and the test says so and checks only the contents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonalloc.h"

/* A value of every kind, sized by i: strings past the largest class too. */
static json_t *make(int i)
{
    char text[600];
    int n = (i * 37) % (int)(sizeof text - 1);
    for (int k = 0; k < n; k++)
        text[k] = (char)('a' + (i + k) % 26);
    text[n] = '\0';
    return json_pack("{s:i, s:s, s:[i, f, b, n], s:{s:s}}", "n", i, "text", text, "list", i,
                     i / 2.0, i % 2, "inner", "key", text + n / 2);
}

static void check(const json_t *v, int i)
{
    json_t *want = make(i);
    assert_non_null(want);
    assert_true(json_equal(v, want));
    json_decref(want);
}

static void test_contents_and_reuse(void **state)
{
    (void)state;
    enum { N = 3000 };
    static json_t *v[N];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            assert_non_null(v[i] = make(i));
        for (int i = 0; i < N; i++)
            check(v[i], i);
        for (int i = 0; i < N; i++)
            json_decref(v[i]);
        if (wrd_json_alloc_active()) {
            /* what was dropped is kept for the next round, within bound */
            assert_true(wrd_json_alloc_kept() > 0);
            assert_true(wrd_json_alloc_kept() <= WRD_JSON_ALLOC_KEEP_BYTES);
        }
    }
    if (!wrd_json_alloc_active())
        print_message("the allocator is not in use in this build (sanitizers or not "
                      "glibc): contents checked only\n");
}

/* Blocks made here are handed back to free(), as json_dumps' are. */
static void test_dumps_to_free(void **state)
{
    (void)state;
    for (int i = 0; i < 500; i++) {
        json_t *v = make(i);
        char *text = json_dumps(v, JSON_SORT_KEYS);
        assert_non_null(text);
        json_t *back = json_loads(text, 0, NULL);
        assert_true(json_equal(back, v));
        free(text);
        json_decref(back);
        json_decref(v);
    }
}

/* Values made on one thread, dropped on another (a worker's parse handed
 * to the loop), then the other thread ends: its lists go with it. */
static void *drop_all(void *arg)
{
    json_t **v = arg;
    for (int i = 0; v[i]; i++) {
        check(v[i], i);
        json_decref(v[i]);
    }
    if (wrd_json_alloc_active())
        assert_true(wrd_json_alloc_kept() > 0);
    return NULL;
}

static void test_freed_on_another_thread(void **state)
{
    (void)state;
    enum { N = 2000 };
    static json_t *v[N + 1];
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < N; i++)
            assert_non_null(v[i] = make(i));
        v[N] = NULL;
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, drop_all, v), 0);
        assert_int_equal(pthread_join(th, NULL), 0);
    }
}

/* After release the thread keeps nothing, and what it frees goes back to
 * free(): last, as warroomd's main does. */
static void test_release(void **state)
{
    (void)state;
    json_t *v = make(7);
    json_decref(v);
    wrd_json_alloc_release();
    assert_int_equal(wrd_json_alloc_kept(), 0);
    v = make(8);
    check(v, 8);
    json_decref(v);
    assert_int_equal(wrd_json_alloc_kept(), 0);
}

int main(void)
{
    wrd_json_alloc_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contents_and_reuse),
        cmocka_unit_test(test_dumps_to_free),
        cmocka_unit_test(test_freed_on_another_thread),
        cmocka_unit_test(test_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
