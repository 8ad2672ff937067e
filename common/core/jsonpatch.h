/*
 * jsonpatch.h - JSON Patch (RFC 6902) and JSON Pointer (RFC 6901) on jansson
 * values: compute the patch between two states, apply a patch atomically.
 *
 * The server keeps the last state each client has seen and sends it the
 * patch to the new one (wr_jsonpatch_diff); the client applies it
 * (wr_jsonpatch_apply). The diff is deterministic (object keys are visited
 * in byte order) and small for the usual step of a game: one command moves
 * a few units, so the patch is a few "replace" operations deep in the state.
 *
 * Diff strategy, node by node:
 *   objects   keys only in `from` are removed, keys only in `to` added, keys
 *             in both recursed into (both objects or both arrays) or replaced
 *   arrays    the common prefix and suffix are kept; the middles are
 *             recursed into pairwise, then the surplus removed (from the
 *             end) or the shortfall added, with explicit indices (never
 *             "-"). So equal lengths go per index and "to extends from" is
 *             a run of "add". In any other case, when that takes two or
 *             more operations and the JSON of the new array is shorter (by
 *             an estimate), the array is replaced as a whole.
 *   scalars   "replace" unless json_equal()
 * Diff equality is json_equal(): the integer 1 and the real 1.0 differ, so
 * applying the patch yields a value json_equal() to `to`. The "test" operation compares numbers by value, as RFC 6902 4.6 says.
 *
 * Apply implements all of RFC 6902: add, remove, replace, move, copy, test,
 * "-" as the array index of "add", the root pointer "" (add or replace it to
 * replace the whole document; removing it is refused), and "~0"/"~1" escapes.
 * Members an operation does not use are ignored (RFC 6902 4, Appendix A.11).
 * Array indices are decimal without leading zeros ("0" but not "01").
 * The patch is applied to a deep copy, so on any error the input document is
 * untouched and nothing is returned.
 *
 * Pure functions: no I/O, no globals, no state.
 */
#ifndef WR_JSONPATCH_H
#define WR_JSONPATCH_H

#include <stddef.h>

#include <jansson.h>

/* Errors: X(id, value, code, text). Values are negative; 0 is success. */
#define WR_JSONPATCH_ERR_MAP(X)                                                        \
    X(EINVAL, -1, "invalid_argument", "a required argument is NULL")                   \
    X(ENOMEM, -2, "no_memory", "out of memory")                                        \
    X(ENOTPATCH, -3, "not_a_patch", "a patch is an array of operation objects")         \
    X(EBADOP, -4, "bad_op", "\"op\" is missing, not a string or not an operation")     \
    X(EMEMBER, -5, "bad_member",                                                       \
      "a required member (\"path\", \"from\", \"value\") is missing or of the wrong type") \
    X(EPOINTER, -6, "bad_pointer",                                                     \
      "a JSON pointer is empty or starts with '/' and escapes only as ~0 and ~1")      \
    X(ENOTFOUND, -7, "not_found", "no value at that location")                         \
    X(EINDEX, -8, "bad_index",                                                         \
      "an array index is digits without leading zeros, inside the array")             \
    X(ETEST, -9, "test_failed", "a \"test\" operation found a different value")        \
    X(EMOVE, -10, "move_into_child", "a value cannot be moved into one of its children") \
    X(EROOT, -11, "remove_root", "the whole document cannot be removed")

enum wr_jsonpatch_err {
    WR_JSONPATCH_OK = 0,
#define WR_JSONPATCH_ERR_ENUM(id, value, code, text) WR_JSONPATCH_##id = value,
    WR_JSONPATCH_ERR_MAP(WR_JSONPATCH_ERR_ENUM)
#undef WR_JSONPATCH_ERR_ENUM
};

/* Stable code of an error ("not_found"; "ok" for 0, "unknown" otherwise). */
const char *wr_jsonpatch_err_code(int err);

/* The generic sentence of an error. */
const char *wr_jsonpatch_err_text(int err);

/* The patch, an array of operations, that turns `from` into `to`; empty
 * when they are json_equal(). Both are borrowed and not modified; the patch
 * shares no value with them (values in it are deep copies).
 * Returns a new reference (caller frees with json_decref()), or NULL when
 * from or to is NULL or memory runs out. */
json_t *wr_jsonpatch_diff(const json_t *from, const json_t *to);

/* Apply patch (an array of operations, borrowed) to doc_in (borrowed, never
 * modified). On success returns 0 and sets *doc_out to a new reference
 * (caller frees with json_decref()); it shares no value with doc_in or
 * patch. On failure returns a negative WR_JSONPATCH_* error, sets *doc_out
 * to NULL and, when err is not NULL and errlen > 0, writes into err a
 * NUL-terminated sentence naming the operation ("op 2 (remove \"/a/b\"): ...",
 * counted from 0) and the reason. The patch applies entirely or not at all. */
int wr_jsonpatch_apply(const json_t *doc_in, const json_t *patch, json_t **doc_out, char *err,
                       size_t errlen);

/* Resolve the JSON pointer ptr (NUL-terminated; "" is the whole document)
 * in doc. Returns 0 and sets *out to the value, borrowed: valid while doc
 * holds it. Returns WR_JSONPATCH_EPOINTER when ptr is malformed,
 * WR_JSONPATCH_ENOTFOUND or WR_JSONPATCH_EINDEX when nothing is there (then
 * *out is NULL), WR_JSONPATCH_EINVAL when an argument is NULL. */
int wr_jsonpointer_get(const json_t *doc, const char *ptr, json_t **out);

/* The same with a pointer of len bytes (it may hold NUL bytes). */
int wr_jsonpointer_getn(const json_t *doc, const char *ptr, size_t len, json_t **out);

/* Write into buf (size bytes, caller's) the pointer token for key (len
 * bytes, borrowed): "~" becomes "~0" and "/" becomes "~1", nothing else
 * changes. Like snprintf: at most size bytes are written including a NUL
 * (none when size is 0), and the return is the length of the whole escaped
 * key without the NUL, so a return >= size means buf holds only a prefix. */
size_t wr_jsonpointer_escape(const char *key, size_t len, char *buf, size_t size);

#endif
