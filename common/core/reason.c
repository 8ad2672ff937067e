/*
 * reason.c - codes and sentences of the reason table in reason.h.
 */
#include "reason.h"

#include <stdarg.h>
#include <stdio.h>

static const struct wr_reason_info core_rows[] = {
    WR_CORE_REASONS(WR_REASON_ROW)
};

const struct wr_reason_table wr_core_reasons = { core_rows, WR_R_CORE_COUNT };

const char *wr_reason_code_in(const struct wr_reason_table *t, int r)
{
    return r >= 0 && r < t->count ? t->rows[r].code : "unknown";
}

const char *wr_reason_text_in(const struct wr_reason_table *t, int r)
{
    return r >= 0 && r < t->count ? t->rows[r].text : "unknown reason";
}

const char *wr_reason_code(enum wr_reason r)
{
    return wr_reason_code_in(&wr_core_reasons, r);
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

int wr_vrefuse_in(struct wr_refusal *why, const struct wr_reason_table *t, int r,
                  const char *fmt, va_list ap)
{
    if (why == NULL)
        return r;
    why->reason = r;
    why->code = wr_reason_code_in(t, r);
    if (fmt == NULL)
        snprintf(why->message, sizeof why->message, "%s", wr_reason_text_in(t, r));
    else
        vsnprintf(why->message, sizeof why->message, fmt, ap);
    wr_utf8_clean(why->message);
    return r;
}

enum wr_reason wr_vrefuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, va_list ap)
{
    return (enum wr_reason)wr_vrefuse_in(why, &wr_core_reasons, r, fmt, ap);
}

enum wr_reason wr_refuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse(why, r, fmt, ap);
    va_end(ap);
    return r;
}
