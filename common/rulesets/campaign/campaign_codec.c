/*
 * campaign_codec.c - a campaign command read from JSON by its shape alone
 * (wr_campaign_parse_command): the type, the keys it must and may have,
 * their types and lengths. Names are checked against the map by the rules.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stddef.h>
#include <string.h>

enum field_kind { F_TEXT, F_HEX64, F_VP };

struct field {
    const char *key;
    enum field_kind kind;
    int required;
    size_t min, max;            /* F_TEXT: bytes */
};

struct cmd_shape {
    const char *name;
    enum wr_campaign_cmd_type type;
    struct field fields[3];
};

static const struct cmd_shape shapes[WR_CC_COUNT] = {
    { "start", WR_CC_START, { { NULL, F_TEXT, 0, 0, 0 } } },
    { "choose_town", WR_CC_CHOOSE_TOWN, { { "town", F_TEXT, 1, 1, 255 } } },
    { "attack", WR_CC_ATTACK, { { "target", F_TEXT, 1, 1, 255 } } },
    { "counter", WR_CC_COUNTER, { { "town", F_TEXT, 1, 1, 255 } } },
    { "choose_strategy", WR_CC_CHOOSE_STRATEGY, { { "strategy", F_TEXT, 1, 1, 64 } } },
    { "commit", WR_CC_COMMIT, { { "commitment", F_HEX64, 1, 64, 64 } } },
    { "tactic", WR_CC_TACTIC,
      { { "choice", F_TEXT, 1, 1, 64 }, { "salt", F_TEXT, 0, 0, WR_CAMPAIGN_SALT_MAX } } },
    { "seal_ambush", WR_CC_SEAL_AMBUSH, { { "note", F_TEXT, 1, 1, WR_CAMPAIGN_NOTE_MAX } } },
    { "reveal_ambush", WR_CC_REVEAL_AMBUSH, { { "seat", F_TEXT, 0, 1, 16 } } },
    { "report", WR_CC_REPORT, { { "attacker", F_VP, 1, 0, 0 }, { "defender", F_VP, 1, 0, 0 } } },
    { "settle", WR_CC_SETTLE, { { "attacker", F_VP, 1, 0, 0 }, { "defender", F_VP, 1, 0, 0 } } },
};

static int is_lower_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[64] == '\0';
}

/* Check one field of cmd against f; store it in out. */
static enum wr_campaign_reason parse_field(const struct cmd_shape *sh, const struct field *f,
                                  const json_t *v, struct wr_campaign_cmd *out,
                                  struct wr_refusal *why)
{
    if (v == NULL) {
        if (f->required)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s needs \"%s\"", sh->name, f->key);
        return WR_CR_OK;
    }
    const char *s = NULL;
    json_int_t n = 0;
    if (f->kind == F_VP) {
        if (!json_is_integer(v) || (n = json_integer_value(v)) < 0 || n > WR_CAMPAIGN_VP_MAX)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: \"%s\" is a whole number of victory "
                             "points from 0 to %d", sh->name, f->key, WR_CAMPAIGN_VP_MAX);
    } else {
        if (!json_is_string(v))
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: \"%s\" must be a string", sh->name,
                             f->key);
        s = json_string_value(v);
        size_t len = json_string_length(v);
        if (strlen(s) != len)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: \"%s\" contains a NUL character",
                             sh->name, f->key);
        if (len < f->min || len > f->max)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: \"%s\" must be %zu to %zu bytes",
                             sh->name, f->key, f->min, f->max);
        if (f->kind == F_HEX64 && !is_lower_hex64(s))
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: \"%s\" must be 64 lowercase hex "
                             "digits (SHA-256 of the choice and the salt)", sh->name, f->key);
    }
    const char *k = f->key;
    if (strcmp(k, "town") == 0 || strcmp(k, "target") == 0) {
        out->town = s;
    } else if (strcmp(k, "strategy") == 0) {
        int st = wr_campaign_strategy_parse(s);
        if (st < WR_CS_FLANK_MARCH || st > WR_CS_GOOD_PLANNING)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "choose_strategy: \"strategy\" is one of "
                             "flank_march, hidden_ambush, scouts, rapid_deployment, "
                             "good_planning");
        out->strategy = st;
    } else if (strcmp(k, "commitment") == 0) {
        out->commitment = s;
    } else if (strcmp(k, "choice") == 0) {
        out->tactic = wr_campaign_tactic_parse(s);
        if (out->tactic < 0)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "tactic: \"choice\" is one of march, "
                             "counter_march, attack, defend, regroup");
    } else if (strcmp(k, "salt") == 0) {
        out->salt = s;
    } else if (strcmp(k, "note") == 0) {
        out->note = s;
    } else if (strcmp(k, "seat") == 0) {
        out->seat = s;
    } else if (strcmp(k, "attacker") == 0) {
        out->vp[0] = (int)n;
    } else if (strcmp(k, "defender") == 0) {
        out->vp[1] = (int)n;
    }
    return WR_CR_OK;
}

enum wr_campaign_reason wr_campaign_parse_command(const json_t *cmd, struct wr_campaign_cmd *out,
                                         struct wr_refusal *why)
{
    memset(out, 0, sizeof *out);
    out->tactic = -1;
    /* 1) an object with a known "type" */
    const char *type = json_string_value(json_object_get(cmd, "type"));
    if (!json_is_object(cmd) || type == NULL)
        return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "a command is an object with a \"type\"");
    const struct cmd_shape *sh = NULL;
    for (int i = 0; i < WR_CC_COUNT && !sh; i++)
        if (strcmp(shapes[i].name, type) == 0)
            sh = &shapes[i];
    if (sh == NULL)
        return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "unknown campaign command '%.40s'", type);
    out->type = sh->type;
    /* 2) no key but the type's */
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)cmd, key, v) {
        int known = strcmp(key, "type") == 0;
        for (int i = 0; i < 3 && sh->fields[i].key && !known; i++)
            known = strcmp(sh->fields[i].key, key) == 0;
        if (!known)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: unknown key '%.40s'", sh->name, key);
    }
    /* 3) each field of the right type and size */
    for (int i = 0; i < 3 && sh->fields[i].key; i++) {
        enum wr_campaign_reason r = parse_field(sh, &sh->fields[i], json_object_get(cmd, sh->fields[i].key),
                                       out, why);
        if (r != WR_CR_OK)
            return r;
    }
    return WR_CR_OK;
}

const char *cp_command_name(enum wr_campaign_cmd_type type)
{
    return shapes[type].name;
}
