/*
 * registry.c - the table of rulesets a program holds, compiled from a
 * generated rulesets.def: one WR_RULESET(name) line per ruleset, in the
 * order of common/rulesets/rulesets.list (or of a test's own list, see
 * warroom_registry() in common/CMakeLists.txt). Each names the ruleset's
 * glue, `wr_ruleset_<name>`.
 */
#include "ruleset.h"

#include <stddef.h>
#include <string.h>

#define WR_RULESET(name) extern const struct wr_ruleset wr_ruleset_##name;
#include "rulesets.def"
#undef WR_RULESET

static const struct wr_ruleset *const rulesets[] = {
#define WR_RULESET(name) &wr_ruleset_##name,
#include "rulesets.def"
#undef WR_RULESET
};

const struct wr_ruleset *wr_ruleset_at(int i)
{
    return i >= 0 && (size_t)i < sizeof rulesets / sizeof rulesets[0] ? rulesets[i] : NULL;
}

const struct wr_ruleset *wr_ruleset_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof rulesets / sizeof rulesets[0]; i++)
        if (strcmp(rulesets[i]->name, name) == 0)
            return rulesets[i];
    return NULL;
}
