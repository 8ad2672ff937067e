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

enum wr_reason wr_refuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, ...)
{
    if (why == NULL)
        return r;
    why->reason = r;
    if (fmt == NULL) {
        snprintf(why->message, sizeof why->message, "%s", wr_reason_text(r));
    } else {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why->message, sizeof why->message, fmt, ap);
        va_end(ap);
    }
    return r;
}
