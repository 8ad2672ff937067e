/*
 * ruleset.c - the table of rulesets and its lookups. Each ruleset's glue
 * (its struct wr_ruleset) is in its own folder under rulesets/.
 */
#include "ruleset.h"

#include <stddef.h>
#include <string.h>

static const struct wr_ruleset *const rulesets[] = {
    &wr_ruleset_waterloo,
    &wr_ruleset_tictactoe,
    &wr_ruleset_campaign,
};

const struct wr_ruleset *wr_ruleset_find(const char *name)
{
    for (size_t i = 0; i < sizeof rulesets / sizeof rulesets[0]; i++)
        if (strcmp(rulesets[i]->name, name) == 0)
            return rulesets[i];
    return NULL;
}

int wr_ruleset_has_seat(const struct wr_ruleset *rs, const char *seat)
{
    for (int i = 0; seat && rs->seats[i]; i++)
        if (strcmp(rs->seats[i], seat) == 0)
            return 1;
    return 0;
}
