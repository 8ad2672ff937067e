/*
 * jscan.h - read a few top-level members of a JSON object without building
 * a tree: the load tool reads tens of thousands of server messages a second
 * on a machine it shares with the server, and needs only their type, game,
 * versions and seqs. Values come back as spans of the original text.
 *
 * The scanner skips nested values (strings with escapes, objects, arrays)
 * correctly but does not validate them: it trusts the server's JSON, which
 * jansson wrote.
 */
#ifndef WL_JSCAN_H
#define WL_JSCAN_H

#include <stddef.h>
#include <stdint.h>

struct wl_jv {
    const char *p;      /* the value's text, NULL when the member is absent */
    size_t n;
};

/* Fill out[i] with the member keys[i] of the object s[0..n) (absent: p
 * NULL). Returns 0, or -1 when s is not a JSON object. */
int wl_js_fields(const char *s, size_t n, const char *const *keys, int nkeys,
                 struct wl_jv *out);

/* An integer value; 0 or -1 when v is absent or not an integer. */
int wl_jv_int(struct wl_jv v, int64_t *out);

/* A string value without escapes copied into buf (NUL-terminated); 0, or
 * -1 when absent, not a plain string or too long. */
int wl_jv_str(struct wl_jv v, char *buf, size_t cap);

/* Is v the string s (no escapes)? */
int wl_jv_streq(struct wl_jv v, const char *s);

#endif
