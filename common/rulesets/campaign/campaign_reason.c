/*
 * campaign_reason.c - the campaign's reason table (campaign_reason.h).
 */
#include "campaign_reason.h"

static const struct wr_reason_info rows[] = {
    WR_REASON_ROWS(WR_CAMPAIGN_REASON_MAP)
};

const struct wr_reason_table wr_campaign_reasons = { rows, WR_CR_COUNT };

enum wr_campaign_reason wr_campaign_vrefuse(struct wr_refusal *why, enum wr_campaign_reason r,
                                            const char *fmt, va_list ap)
{
    return (enum wr_campaign_reason)wr_vrefuse_in(why, &wr_campaign_reasons, r, fmt, ap);
}

enum wr_campaign_reason wr_campaign_refuse(struct wr_refusal *why, enum wr_campaign_reason r,
                                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_campaign_vrefuse(why, r, fmt, ap);
    va_end(ap);
    return r;
}

const char *wr_campaign_reason_code(enum wr_campaign_reason r)
{
    return wr_reason_code_in(&wr_campaign_reasons, r);
}
