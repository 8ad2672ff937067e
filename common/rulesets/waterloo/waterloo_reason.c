/*
 * waterloo_reason.c - Waterloo's reason table (waterloo_reason.h).
 */
#include "waterloo_reason.h"

static const struct wr_reason_info rows[] = {
    WR_REASON_ROWS(WL_REASON_MAP)
};

const struct wr_reason_table wl_reasons = { rows, WL_R_COUNT };

enum wl_reason wl_vrefuse(struct wr_refusal *why, enum wl_reason r, const char *fmt, va_list ap)
{
    return (enum wl_reason)wr_vrefuse_in(why, &wl_reasons, r, fmt, ap);
}

enum wl_reason wl_refuse(struct wr_refusal *why, enum wl_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_vrefuse(why, r, fmt, ap);
    va_end(ap);
    return r;
}

const char *wl_reason_code(enum wl_reason r)
{
    return wr_reason_code_in(&wl_reasons, r);
}

const char *wl_reason_text(enum wl_reason r)
{
    return wr_reason_text_in(&wl_reasons, r);
}
