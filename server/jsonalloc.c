/*
 * jsonalloc.c - jansson's memory, kept by size for reuse on each thread.
 *
 * Every command builds and drops dozens of small JSON values (the command
 * parsed, its events, each view's patch, the server section), and a commit
 * frees those of hundreds of commands at once. That churn overflows
 * glibc's per-thread cache (seven blocks of a size) into its shared bins,
 * whose upkeep (malloc_consolidate, unlink_chunk) was about a tenth of
 * warroomd's CPU under load. Here each thread keeps the blocks jansson
 * frees in lists by size class, up to WRD_JSON_ALLOC_KEEP_BYTES in all, and hands them
 * out again; larger blocks go straight to malloc.
 *
 * The blocks are malloc's own, so anything may hand them to free() (a
 * string from json_dumps() is): jansson's free finds a block's class from
 * its usable size (glibc's malloc_usable_size), and a block of a class is
 * never smaller than the class. A block may be freed on another thread
 * than the one that allocated it (a worker thread's parse handed to the
 * loop): it then joins that thread's lists. A thread's lists are freed when
 * it ends (a pthread key's destructor) and the loop thread's at
 * wrd_json_alloc_release(), so nothing is left behind at exit.
 *
 * Under AddressSanitizer the lists are not used (every block is malloc's
 * and free's): a block reused at once would hide a use after free.
 */
#include "jsonalloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define JA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JA_SANITIZED 1
#endif
#endif
#if !defined(JA_SANITIZED) && defined(__GLIBC__)
#include <malloc.h>
#define JA_KEEP 1
#else
#define JA_KEEP 0
#endif

#if JA_KEEP
#define JA_GRAIN 16                         /* class c holds (c + 1) * 16 bytes */
#define JA_CLASSES 16                       /* up to 256 bytes */

struct ja_block {
    struct ja_block *next;
};

struct ja_cache {
    struct ja_block *list[JA_CLASSES];
    size_t kept;                            /* bytes in the lists */
};

static pthread_key_t ja_key;
static pthread_once_t ja_once = PTHREAD_ONCE_INIT;
static int ja_key_ok;
static _Thread_local struct ja_cache *ja_mine;
static _Thread_local int ja_released;       /* this thread keeps nothing more */

static void ja_drop(struct ja_cache *c)
{
    for (size_t k = 0; k < JA_CLASSES; k++)
        while (c->list[k]) {
            struct ja_block *f = c->list[k];
            c->list[k] = f->next;
            free(f);
        }
    free(c);
}

static void ja_thread_end(void *c)
{
    ja_drop(c);
}

static void ja_make_key(void)
{
    ja_key_ok = pthread_key_create(&ja_key, ja_thread_end) == 0;
}

/* This thread's lists, made on first use; NULL when they cannot be (then
 * blocks go back to free). */
static struct ja_cache *ja_cache(void)
{
    if (ja_mine || ja_released)
        return ja_mine;
    pthread_once(&ja_once, ja_make_key);
    struct ja_cache *c = ja_key_ok ? calloc(1, sizeof *c) : NULL;
    if (c && pthread_setspecific(ja_key, c) != 0) {
        free(c);
        c = NULL;
    }
    return ja_mine = c;
}

static void *ja_malloc(size_t n)
{
    size_t cls = n == 0 ? 0 : (n - 1) / JA_GRAIN;
    if (cls >= JA_CLASSES)
        return malloc(n);
    struct ja_cache *c = ja_mine;
    struct ja_block *f = c ? c->list[cls] : NULL;
    if (f == NULL)
        return malloc((cls + 1) * JA_GRAIN);
    c->list[cls] = f->next;
    c->kept -= (cls + 1) * JA_GRAIN;
    return f;
}

static void ja_free(void *p)
{
    if (p == NULL)
        return;
    /* the largest class not above the block's usable size */
    size_t u = malloc_usable_size(p);
    size_t cls = u < 8 + JA_GRAIN ? JA_CLASSES : (u - 8) / JA_GRAIN - 1;
    struct ja_cache *c;
    if (cls >= JA_CLASSES || (c = ja_cache()) == NULL ||
        c->kept + (cls + 1) * JA_GRAIN > WRD_JSON_ALLOC_KEEP_BYTES) {
        free(p);
        return;
    }
    struct ja_block *f = p;
    f->next = c->list[cls];
    c->list[cls] = f;
    c->kept += (cls + 1) * JA_GRAIN;
}
#endif

void wrd_json_alloc_init(void)
{
#if JA_KEEP
    json_set_alloc_funcs(ja_malloc, ja_free);
#endif
}

void wrd_json_alloc_release(void)
{
#if JA_KEEP
    struct ja_cache *c = ja_mine;
    ja_released = 1;
    if (c == NULL)
        return;
    ja_mine = NULL;
    if (ja_key_ok)
        pthread_setspecific(ja_key, NULL);
    ja_drop(c);
#endif
}

int wrd_json_alloc_active(void)
{
    return JA_KEEP;
}

size_t wrd_json_alloc_kept(void)
{
#if JA_KEEP
    return ja_mine ? ja_mine->kept : 0;
#else
    return 0;
#endif
}
