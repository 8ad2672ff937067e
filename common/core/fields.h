/*
 * fields.h - a struct saved as JSON and read back, driven by a table of its
 * fields: the one writer and the one parser of the saved games of rulesets
 * whose game is a plain value (ruleset.h, version 5: battle_save.c,
 * campaign_save.c). A table lists, in order, each field's JSON name, its
 * kind, where it is in the struct, how many elements it has and the range
 * of each; reading checks every value against it, so a damaged text from a
 * store is refused with the path of the first bad value
 * ("side[1].army.units[3].wounds: ...") and never written half-checked
 * into anything but the caller's scratch.
 *
 * The JSON of a table is an object holding exactly its fields (a reader
 * refuses a missing or an unknown name): a single value bare, an array of
 * n elements (or of `count` of them, the count being an earlier integer
 * field of the same table) as a JSON array, a nested struct as an object.
 * Integers are JSON integers, booleans true and false, strings strings.
 * Pure: no I/O, no globals.
 */
#ifndef WR_FIELDS_H
#define WR_FIELDS_H

#include <stddef.h>

struct json_t;

enum wr_field_kind {
    WR_F_INT,           /* a signed integer (or an enum) of 1, 2, 4 or 8 bytes, lo..hi */
    WR_F_UINT,          /* an unsigned integer of 1, 2, 4 or 8 bytes, lo..hi */
    WR_F_BOOL,          /* a bool (or a 0/1 int of its size) */
    WR_F_STR,           /* a NUL-terminated char[size]: at most size - 1 bytes, no NUL */
    WR_F_SUB            /* a nested struct of size bytes, read with table sub */
};

struct wr_field {
    const char *name;           /* the JSON key; NULL ends a table */
    enum wr_field_kind kind;
    size_t offset;              /* of the first element in the struct */
    size_t size;                /* of one element */
    int n;                      /* elements; 1 and count NULL: a single value */
    const char *count;          /* NULL, or the name of an earlier WR_F_INT field of the
                                 * same table ("count"), or of a struct nested in an
                                 * earlier field ("army.count"): how many of the n
                                 * elements are saved (the others are left as the
                                 * caller's struct has them); its hi is at most n */
    long long lo, hi;           /* WR_F_INT, WR_F_UINT: the range of each element */
    const struct wr_field *sub; /* WR_F_SUB: the element's table */
};

#define WR_MEMBER_SIZE(T, m) sizeof(((T *)0)->m)
/* One value; a fixed array saved whole (E: the element type); an array of
 * which the field named count says how many are saved; a string; nested
 * structs. */
#define WR_FIELD(T, m, kind, lo, hi) \
    { #m, kind, offsetof(T, m), WR_MEMBER_SIZE(T, m), 1, NULL, lo, hi, NULL }
#define WR_FIELD_ARRAY(T, m, E, kind, count, lo, hi) \
    { #m, kind, offsetof(T, m), sizeof(E), (int)(WR_MEMBER_SIZE(T, m) / sizeof(E)), count, \
      lo, hi, NULL }
#define WR_FIELD_BOOL(T, m) WR_FIELD(T, m, WR_F_BOOL, 0, 1)
#define WR_FIELD_STR(T, m) \
    { #m, WR_F_STR, offsetof(T, m), WR_MEMBER_SIZE(T, m), 1, NULL, 0, 0, NULL }
#define WR_FIELD_SUB(T, m, table) \
    { #m, WR_F_SUB, offsetof(T, m), WR_MEMBER_SIZE(T, m), 1, NULL, 0, 0, table }
#define WR_FIELD_SUBS(T, m, E, count, table) \
    { #m, WR_F_SUB, offsetof(T, m), sizeof(E), (int)(WR_MEMBER_SIZE(T, m) / sizeof(E)), \
      count, 0, 0, table }
#define WR_FIELD_END { NULL, WR_F_INT, 0, 0, 0, NULL, 0, 0, NULL }

/* The fields of table t of the struct at obj (borrowed) as a new JSON
 * object, or NULL when memory runs out. */
struct json_t *wr_fields_save(const void *obj, const struct wr_field *t);

/* Read j (borrowed) into the struct at obj by table t: every field of t
 * and no other, each value in range. Returns 0, or -1 with msg (n bytes)
 * naming the path of the first bad value; obj is then partly written
 * (callers read into a scratch copy). */
int wr_fields_load(void *obj, const struct wr_field *t, const struct json_t *j, char *msg,
                   size_t n);

#endif
