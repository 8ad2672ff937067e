/*
 * reason.c - codes and sentences of the reason table in reason.h.
 */
#include "reason.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const codes[] = {
#define WR_REASON_CODE(id, code, text) code,
    WR_REASON_MAP(WR_REASON_CODE)
#undef WR_REASON_CODE
};

static const char *const texts[] = {
#define WR_REASON_TEXT(id, code, text) text,
    WR_REASON_MAP(WR_REASON_TEXT)
#undef WR_REASON_TEXT
};

const char *wr_reason_code(enum wr_reason r)
{
    return (r >= 0 && r < WR_R_COUNT) ? codes[r] : "unknown";
}

const char *wr_reason_text(enum wr_reason r)
{
    return (r >= 0 && r < WR_R_COUNT) ? texts[r] : "unknown reason";
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    int n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    for (int i = 1; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

void wr_utf8_clean(char *text)
{
    unsigned char *s = (unsigned char *)text;
    while (*s) {
        int n = utf8_len(s);
        if (n == 0) {
            *s++ = '?';
            continue;
        }
        s += n;
    }
}

enum wr_reason wr_vrefuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, va_list ap)
{
    if (why == NULL)
        return r;
    why->reason = r;
    if (fmt == NULL)
        snprintf(why->message, sizeof why->message, "%s", wr_reason_text(r));
    else
        vsnprintf(why->message, sizeof why->message, fmt, ap);
    wr_utf8_clean(why->message);
    return r;
}

enum wr_reason wr_refuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse(why, r, fmt, ap);
    va_end(ap);
    return r;
}
