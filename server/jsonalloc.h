/*
 * jsonalloc.h - jansson's memory, kept by size for reuse on each thread
 * (jsonalloc.c says why and how).
 */
#ifndef WRD_JSONALLOC_H
#define WRD_JSONALLOC_H

#include <stddef.h>

/* Hand jansson its allocator: first thing in main, before any JSON value
 * exists (a value made before would be freed through it: still correct,
 * the blocks are malloc's, but kept). Does nothing where the blocks cannot
 * be sized (not glibc) or under AddressSanitizer. */
void wrd_json_alloc_init(void);

/* The calling thread's kept blocks freed; it keeps none from now on. The
 * loop thread calls it last thing before main returns (other threads'
 * lists are freed as they end). */
void wrd_json_alloc_release(void);

/* The most bytes of blocks one thread keeps. */
#define WRD_JSON_ALLOC_KEEP_BYTES (2u << 20)

/* For the tests: is the allocator in use (1), and the bytes of blocks
 * the calling thread keeps now (at most WRD_JSON_ALLOC_KEEP_BYTES). */
int wrd_json_alloc_active(void);
size_t wrd_json_alloc_kept(void);

#endif
