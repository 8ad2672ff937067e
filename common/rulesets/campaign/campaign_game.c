/*
 * campaign_game.c - the map campaign ruleset (campaign.h): the tables, the
 * command parser, the phase machine, the sealed choices and the per-seat
 * projection.
 *
 * Everything a seat may not see is filtered here and only here: the server
 * diffs each seat's projection (hidden_info = 1), so a tactic, a salt, a
 * commitment or an ambush note can reach another seat or a spectator only
 * through wr_campaign_project() or wr_campaign_project_events().
 */
#include "campaign.h"

#include <assert.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "dice.h"

/* --- tables ---------------------------------------------------------------- */

static const char *const tactic_names[WR_CT_COUNT] = { "march", "counter_march", "attack",
                                                      "defend", "regroup" };

static const char *const strategy_names[] = { "none", "flank_march", "hidden_ambush", "scouts",
                                              "rapid_deployment", "good_planning",
                                              "brilliant_generalship" };

static const char *const kind_names[] = { "no_battle", "reinforce", "open", "meeting",
                                          "skirmish", "ambush", "surprise", "break_through",
                                          "attacks_defences", "flank_march", "last_stand" };

/* The tactics table of the rulebook, row = blue's (the attacker's) choice,
 * column = red's (the defender's), both in the order March, Counter-march,
 * Attack, Defend, Regroup. Each cell is its two sentences: why, and what. */
static const struct wr_campaign_tactics_cell tactics_table[WR_CT_COUNT][WR_CT_COUNT] = {
    /* blue March */
    { { WR_CK_MEETING, WR_CA_BOTH, "Both sides engage from the march." },
      { WR_CK_AMBUSH, WR_CA_RED, "Red anticipates blue's route." },
      { WR_CK_SURPRISE, WR_CA_RED, "Red's aggression catches blue unawares." },
      { WR_CK_NO_BATTLE, WR_CA_NONE, "Red's position is too strong." },
      { WR_CK_BREAK_THROUGH, WR_CA_RED, "Blue blocks red's line of retreat." } },
    /* blue Counter-march */
    { { WR_CK_AMBUSH, WR_CA_BLUE, "Blue anticipates red's route." },
      { WR_CK_NO_BATTLE, WR_CA_NONE, "Both sides march all day seeking advantage." },
      { WR_CK_NO_BATTLE, WR_CA_NONE, "Blue withdraws ahead of red's attack." },
      { WR_CK_FLANK_MARCH, WR_CA_BLUE, "Blue's march forces red out of their position." },
      { WR_CK_REINFORCE, WR_CA_RED, "Red breaks clean away." } },
    /* blue Attack */
    { { WR_CK_SURPRISE, WR_CA_BLUE, "Blue's aggression catches red unawares." },
      { WR_CK_NO_BATTLE, WR_CA_NONE, "Red withdraws ahead of blue's attack." },
      { WR_CK_OPEN, WR_CA_BOTH, "Both sides prepare for battle." },
      { WR_CK_ATTACKS_DEFENCES, WR_CA_BLUE, "Red's preparations pay off." },
      { WR_CK_LAST_STAND, WR_CA_RED, "Blue attacks red's rearguard." } },
    /* blue Defend */
    { { WR_CK_NO_BATTLE, WR_CA_NONE, "Blue's position is too strong." },
      { WR_CK_FLANK_MARCH, WR_CA_RED, "Red's march forces blue out of their position." },
      { WR_CK_ATTACKS_DEFENCES, WR_CA_RED, "Blue's preparations pay off." },
      { WR_CK_SKIRMISH, WR_CA_BOTH, "Both sides send out patrols." },
      { WR_CK_REINFORCE, WR_CA_RED, "Red breaks clean away." } },
    /* blue Regroup */
    { { WR_CK_BREAK_THROUGH, WR_CA_BLUE, "Red blocks blue's line of retreat." },
      { WR_CK_REINFORCE, WR_CA_BLUE, "Blue breaks clean away." },
      { WR_CK_LAST_STAND, WR_CA_BLUE, "Red attacks blue's rearguard." },
      { WR_CK_REINFORCE, WR_CA_BLUE, "Blue breaks clean away." },
      { WR_CK_REINFORCE, WR_CA_BOTH, "Both sides wait for more troops." } },
};

const struct wr_campaign_tactics_cell *wr_campaign_tactics(enum wr_campaign_tactic blue,
                                                          enum wr_campaign_tactic red)
{
    if ((int)blue < 0 || blue >= WR_CT_COUNT || (int)red < 0 || red >= WR_CT_COUNT)
        return NULL;
    return &tactics_table[blue][red];
}

enum wr_campaign_strategy wr_campaign_strategy_of_roll(int face)
{
    return face >= 1 && face <= 6 ? (enum wr_campaign_strategy)face : WR_CS_NONE;
}

const char *wr_campaign_tactic_name(enum wr_campaign_tactic t)
{
    return (int)t >= 0 && t < WR_CT_COUNT ? tactic_names[t] : NULL;
}

int wr_campaign_tactic_parse(const char *name)
{
    for (int i = 0; name && i < WR_CT_COUNT; i++)
        if (strcmp(tactic_names[i], name) == 0)
            return i;
    return -1;
}

const char *wr_campaign_strategy_name(enum wr_campaign_strategy s)
{
    return (int)s >= 0 && s <= WR_CS_BRILLIANT_GENERALSHIP ? strategy_names[s] : NULL;
}

int wr_campaign_strategy_parse(const char *name)
{
    for (int i = WR_CS_FLANK_MARCH; name && i <= WR_CS_BRILLIANT_GENERALSHIP; i++)
        if (strcmp(strategy_names[i], name) == 0)
            return i;
    return -1;
}

const char *wr_campaign_kind_name(enum wr_campaign_tactics_kind k)
{
    return (int)k >= 0 && k <= WR_CK_LAST_STAND ? kind_names[k] : NULL;
}

static int is_battle(enum wr_campaign_tactics_kind k)
{
    return k != WR_CK_NO_BATTLE && k != WR_CK_REINFORCE;
}

int wr_campaign_commitment(const char *choice, const char *salt, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char buf[64 + WR_CAMPAIGN_SALT_MAX], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    size_t a = strlen(choice), b = salt ? strlen(salt) : 0;
    hex[0] = '\0';
    if (a > 64 || b > WR_CAMPAIGN_SALT_MAX)
        return -1;
    memcpy(buf, choice, a);
    if (b)
        memcpy(buf + a, salt, b);
    if (EVP_Digest(buf, a + b, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
        return -1;
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}

/* --- the command parser ----------------------------------------------------------- */

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
static enum wr_reason parse_field(const struct cmd_shape *sh, const struct field *f,
                                  const json_t *v, struct wr_campaign_cmd *out,
                                  struct wr_refusal *why)
{
    if (v == NULL) {
        if (f->required)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s needs \"%s\"", sh->name, f->key);
        return WR_R_OK;
    }
    const char *s = NULL;
    json_int_t n = 0;
    if (f->kind == F_VP) {
        if (!json_is_integer(v) || (n = json_integer_value(v)) < 0 || n > WR_CAMPAIGN_VP_MAX)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: \"%s\" is a whole number of victory "
                             "points from 0 to %d", sh->name, f->key, WR_CAMPAIGN_VP_MAX);
    } else {
        if (!json_is_string(v))
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: \"%s\" must be a string", sh->name,
                             f->key);
        s = json_string_value(v);
        size_t len = json_string_length(v);
        if (strlen(s) != len)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: \"%s\" contains a NUL character",
                             sh->name, f->key);
        if (len < f->min || len > f->max)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: \"%s\" must be %zu to %zu bytes",
                             sh->name, f->key, f->min, f->max);
        if (f->kind == F_HEX64 && !is_lower_hex64(s))
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: \"%s\" must be 64 lowercase hex "
                             "digits (SHA-256 of the choice and the salt)", sh->name, f->key);
    }
    const char *k = f->key;
    if (strcmp(k, "town") == 0 || strcmp(k, "target") == 0) {
        out->town = s;
    } else if (strcmp(k, "strategy") == 0) {
        int st = wr_campaign_strategy_parse(s);
        if (st < WR_CS_FLANK_MARCH || st > WR_CS_GOOD_PLANNING)
            return wr_refuse(why, WR_R_BAD_COMMAND, "choose_strategy: \"strategy\" is one of "
                             "flank_march, hidden_ambush, scouts, rapid_deployment, "
                             "good_planning");
        out->strategy = st;
    } else if (strcmp(k, "commitment") == 0) {
        out->commitment = s;
    } else if (strcmp(k, "choice") == 0) {
        out->tactic = wr_campaign_tactic_parse(s);
        if (out->tactic < 0)
            return wr_refuse(why, WR_R_BAD_COMMAND, "tactic: \"choice\" is one of march, "
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
    return WR_R_OK;
}

enum wr_reason wr_campaign_parse_command(const json_t *cmd, struct wr_campaign_cmd *out,
                                         struct wr_refusal *why)
{
    memset(out, 0, sizeof *out);
    out->tactic = -1;
    /* 1) an object with a known "type" */
    const char *type = json_string_value(json_object_get(cmd, "type"));
    if (!json_is_object(cmd) || type == NULL)
        return wr_refuse(why, WR_R_BAD_COMMAND, "a command is an object with a \"type\"");
    const struct cmd_shape *sh = NULL;
    for (int i = 0; i < WR_CC_COUNT && !sh; i++)
        if (strcmp(shapes[i].name, type) == 0)
            sh = &shapes[i];
    if (sh == NULL)
        return wr_refuse(why, WR_R_BAD_COMMAND, "unknown campaign command '%.40s'", type);
    out->type = sh->type;
    /* 2) no key but the type's */
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)cmd, key, v) {
        int known = strcmp(key, "type") == 0;
        for (int i = 0; i < 3 && sh->fields[i].key && !known; i++)
            known = strcmp(sh->fields[i].key, key) == 0;
        if (!known)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: unknown key '%.40s'", sh->name, key);
    }
    /* 3) each field of the right type and size */
    for (int i = 0; i < 3 && sh->fields[i].key; i++) {
        enum wr_reason r = parse_field(sh, &sh->fields[i], json_object_get(cmd, sh->fields[i].key),
                                       out, why);
        if (r != WR_R_OK)
            return r;
    }
    return WR_R_OK;
}

/* --- seats, allies, towns ----------------------------------------------------------- */

static const char *const seat_names[WR_CAMPAIGN_PLAYERS_MAX] = { "p1", "p2", "p3", "p4",
                                                                 "p5", "p6", "p7", "p8" };

int wr_campaign_player(const struct wr_campaign *c, const char *seat)
{
    for (int i = 0; seat && i < c->nplayers; i++)
        if (strcmp(seat_names[i], seat) == 0)
            return i;
    return -1;
}

static int is_referee(const struct wr_campaign *c, const char *seat)
{
    return c->has_referee && seat && strcmp(seat, "referee") == 0;
}

static const char *pname(int p)
{
    return p >= 0 && p < WR_CAMPAIGN_PLAYERS_MAX ? seat_names[p] : NULL;
}

static int allies(const struct wr_campaign *c, int a, int b)
{
    return c->group[a] == c->group[b];
}

static uint64_t towns_of(const struct wr_campaign *c, int player)
{
    uint64_t m = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] == player)
            m |= (uint64_t)1 << t;
    return m;
}

static int count_bits(uint64_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* Towns adjacent to any town of mask. */
static uint64_t neighbours(const struct wr_campaign *c, uint64_t mask)
{
    uint64_t n = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (mask >> t & 1u)
            n |= c->map.towns[t].adj;
    return n;
}

/* The side (0 attacker, 1 defender) of seat in the attack, or -1. */
static int side_of(const struct wr_campaign *c, const char *seat)
{
    if (c->phase < WR_CP_COUNTER || c->phase > WR_CP_BATTLE)
        return -1;
    int p = wr_campaign_player(c, seat);
    if (p < 0)
        return -1;
    if (p == c->at.attacker)
        return 0;
    if (p == c->at.defender)
        return 1;
    return -1;
}

static int side_player(const struct wr_campaign *c, int side)
{
    return side == 0 ? c->at.attacker : c->at.defender;
}

/* --- the rules -------------------------------------------------------------------- */

enum wr_reason wr_campaign_check_draft(const struct wr_campaign *c, int player, int town,
                                       struct wr_refusal *why)
{
    /* 1) the town is free */
    if (c->owner[town] >= 0)
        return wr_refuse(why, WR_R_TOWN_TAKEN, "%s has already been chosen by %s",
                         c->map.towns[town].name, pname(c->owner[town]));
    /* 2) "If possible, towns selected should be adjacent to one of your
     *    previous selections" (C2) */
    uint64_t free_near = neighbours(c, towns_of(c, player));
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] >= 0)
            free_near &= ~((uint64_t)1 << t);
    if (free_near && !(free_near >> town & 1u)) {
        int example = 0;
        while (!(free_near >> example & 1u))
            example++;
        return wr_refuse(why, WR_R_DRAFT_NOT_ADJACENT, "%s is not adjacent to a town of yours, "
                         "and %s (for one) is free and adjacent", c->map.towns[town].name,
                         c->map.towns[example].name);
    }
    return WR_R_OK;
}

enum wr_reason wr_campaign_check_attack(const struct wr_campaign *c, int player, int target,
                                        struct wr_refusal *why)
{
    int o = c->owner[target];
    /* 1) another player's town */
    if (o < 0 || o == player)
        return wr_refuse(why, WR_R_NOT_ENEMY_TOWN, "%s is %s", c->map.towns[target].name,
                         o < 0 ? "nobody's" : "your own");
    /* 2) not an ally's */
    if (allies(c, o, player))
        return wr_refuse(why, WR_R_NOT_ENEMY_TOWN, "%s belongs to your ally %s",
                         c->map.towns[target].name, pname(o));
    /* 3) adjacent to one of the attacker's towns */
    if (!(c->map.towns[target].adj & towns_of(c, player)))
        return wr_refuse(why, WR_R_TARGET_NOT_ADJACENT, "%s is not adjacent to any town of "
                         "yours", c->map.towns[target].name);
    return WR_R_OK;
}

enum wr_reason wr_campaign_check_counter(const struct wr_campaign *c, int attacker, int target,
                                         int town, struct wr_refusal *why)
{
    /* 1) one of the attacker's towns */
    if (c->owner[town] != attacker)
        return wr_refuse(why, WR_R_NOT_ATTACKERS_TOWN, "%s is not a town of %s",
                         c->map.towns[town].name, pname(attacker));
    /* 2) "one of your towns adjacent to the town you are attacking (or
     *    anywhere else if none are adjacent)" */
    uint64_t near = c->map.towns[target].adj & towns_of(c, attacker);
    if (near && !(near >> town & 1u))
        return wr_refuse(why, WR_R_COUNTER_NOT_ADJACENT, "%s is not adjacent to %s, and %s "
                         "has towns that are", c->map.towns[town].name,
                         c->map.towns[target].name, pname(attacker));
    return WR_R_OK;
}

int wr_campaign_can_attack(const struct wr_campaign *c, int player)
{
    uint64_t near = neighbours(c, towns_of(c, player));
    for (int t = 0; t < c->map.ntowns; t++)
        if ((near >> t & 1u) && c->owner[t] >= 0 && !allies(c, c->owner[t], player))
            return 1;
    return 0;
}

/* --- dice and events --------------------------------------------------------------- */

static void event(json_t *ev, json_t *e)
{
    json_array_append_new(ev, e);
}

/* Roll the game's next die for player (-1: the game), as an event. */
static int roll(struct wr_campaign *c, json_t *ev, int player, const char *purpose)
{
    uint32_t k = c->rolls++;
    int f = wr_dice_roll(c->seed, c->game_id, k);
    if (f < 1)
        f = 1;  /* cannot happen: the id was checked and a roll made at creation */
    json_t *e = json_pack("{s:s, s:I, s:i, s:s}", "type", "roll", "k", (json_int_t)k, "face", f,
                          "for", purpose);
    if (player >= 0)
        json_object_set_new(e, "seat", json_string(pname(player)));
    event(ev, e);
    return f;
}

/* "p1", or "p1+p3" for an alliance: the players of group g, in seat order. */
static void group_name(const struct wr_campaign *c, int g, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int p = 0; p < c->nplayers; p++)
        if (c->group[p] == g && at < n)
            at += (size_t)snprintf(out + at, n - at, "%s%s", at ? "+" : "", pname(p));
}

static void game_over(struct wr_campaign *c, json_t *ev, const char *end)
{
    c->phase = WR_CP_OVER;
    c->end = end;
    event(ev, json_pack("{s:s, s:s, s:s}", "type", "game_over", "winner", c->winner, "end", end));
}

/* One player or alliance holds every town: it wins. */
static int check_conquest(struct wr_campaign *c, json_t *ev)
{
    int g = c->owner[0] >= 0 ? c->group[c->owner[0]] : -1;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] < 0 || c->group[c->owner[t]] != g)
            return 0;
    group_name(c, g, c->winner, sizeof c->winner);
    game_over(c, ev, "conquest");
    return 1;
}

/* The agreed number of turns is played: the most towns wins (C6). */
static void end_by_turns(struct wr_campaign *c, json_t *ev)
{
    int held[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, best = -1, best_n = -1, tie = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] >= 0)
            held[c->group[c->owner[t]]]++;
    for (int g = 0; g < c->nplayers; g++) {
        if (c->group[g] != g)
            continue;
        if (held[g] > best_n) {
            best = g;
            best_n = held[g];
            tie = 0;
        } else if (held[g] == best_n) {
            tie = 1;
        }
    }
    if (tie)
        snprintf(c->winner, sizeof c->winner, "draw");
    else
        group_name(c, best, c->winner, sizeof c->winner);
    game_over(c, ev, "turns");
}

/* Give player p the attack if p holds a town and has someone to attack;
 * a player with towns and nobody to attack passes (C4). */
static int try_give(struct wr_campaign *c, json_t *ev, int p)
{
    if (towns_of(c, p) == 0)
        return 0;       /* out of the campaign */
    if (!wr_campaign_can_attack(c, p)) {
        event(ev, json_pack("{s:s, s:s, s:s}", "type", "passed", "seat", pname(p), "why",
                            "no enemy town is adjacent to any of this player's towns"));
        return 0;
    }
    c->active = p;
    c->phase = WR_CP_ATTACK;
    memset(&c->at, 0, sizeof c->at);
    return 1;
}

/* The turn passes on from the active player, round the table; a new
 * campaign turn starts with the first chooser of the draft (C5). */
static void pass_turn(struct wr_campaign *c, json_t *ev)
{
    int p = c->active;
    for (int step = 0; step < 2 * WR_CAMPAIGN_PLAYERS_MAX + 2; step++) {
        p = (p + 1) % c->nplayers;
        if (p == c->first) {
            if (c->max_turns && c->turn >= c->max_turns) {
                end_by_turns(c, ev);
                return;
            }
            c->turn++;
            event(ev, json_pack("{s:s, s:i}", "type", "turn", "turn", c->turn));
        }
        if (try_give(c, ev, p))
            return;
    }
    /* Unreachable: on a connected map two sides holding towns always have
     * a town to attack. Should it happen, the campaign ends as if on time. */
    end_by_turns(c, ev);
}

static void start_campaign(struct wr_campaign *c, json_t *ev)
{
    c->turn = 1;
    event(ev, json_pack("{s:s, s:i}", "type", "turn", "turn", 1));
    if (!try_give(c, ev, c->first)) {
        c->active = c->first;
        pass_turn(c, ev);
    }
}

/* --- handlers ------------------------------------------------------------------------ */

typedef enum wr_reason (*handler)(struct wr_campaign *c, const char *seat,
                                  const struct wr_campaign_cmd *k, json_t *ev,
                                  struct wr_refusal *why);

static enum wr_reason not_yours(const struct wr_campaign *c, struct wr_refusal *why,
                                const char *what)
{
    const char *aw = wr_campaign_awaited(c);
    return wr_refuse(why, WR_R_NOT_YOUR_TURN, "%s is for %s", what, aw ? aw : "nobody");
}

static int town_or_refuse(const struct wr_campaign *c, const char *name, struct wr_refusal *why)
{
    int t = wr_campaign_map_find(&c->map, name);
    if (t < 0)
        wr_refuse(why, WR_R_UNKNOWN_TOWN, "there is no town '%.60s' on %s", name, c->map.name);
    return t;
}

/* start: the first choice goes to the highest of one die per player;
 * the tied roll again (C1). */
static enum wr_reason do_start(struct wr_campaign *c, const char *seat,
                               const struct wr_campaign_cmd *k, json_t *ev,
                               struct wr_refusal *why)
{
    (void)k;
    /* 1) p1 starts the game */
    if (wr_campaign_player(c, seat) != 0)
        return not_yours(c, why, "starting the draft");
    int in[WR_CAMPAIGN_PLAYERS_MAX], n = c->nplayers;
    for (int p = 0; p < n; p++)
        in[p] = 1;
    for (int round = 0;; round++) {
        int face[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, best = 0, nbest = 0;
        for (int p = 0; p < n; p++)
            if (in[p]) {
                face[p] = roll(c, ev, p, "first_choice");
                best = face[p] > best ? face[p] : best;
            }
        for (int p = 0; p < n; p++) {
            in[p] = in[p] && face[p] == best;
            nbest += in[p];
        }
        if (nbest == 1 || round == 99)      /* 100 ties in a row: the first of them */
            break;
    }
    int first = 0;
    while (!in[first])
        first++;
    c->first = c->active = first;
    c->phase = WR_CP_DRAFT;
    event(ev, json_pack("{s:s, s:s}", "type", "first_choice", "seat", pname(first)));
    return WR_R_OK;
}

static enum wr_reason do_choose_town(struct wr_campaign *c, const char *seat,
                                     const struct wr_campaign_cmd *k, json_t *ev,
                                     struct wr_refusal *why)
{
    int p = wr_campaign_player(c, seat);
    /* 1) the chooser's turn, 2) a town of the map, 3) the draft rules */
    if (p != c->active)
        return not_yours(c, why, "this choice");
    int t = town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_R_UNKNOWN_TOWN;
    enum wr_reason r = wr_campaign_check_draft(c, p, t, why);
    if (r != WR_R_OK)
        return r;
    c->owner[t] = p;
    event(ev, json_pack("{s:s, s:s, s:s}", "type", "town_chosen", "seat", seat, "town",
                        c->map.towns[t].name));
    for (int i = 0; i < c->map.ntowns; i++)
        if (c->owner[i] < 0) {
            c->active = (p + 1) % c->nplayers;
            return WR_R_OK;
        }
    event(ev, json_pack("{s:s}", "type", "draft_over"));
    if (!check_conquest(c, ev))
        start_campaign(c, ev);
    return WR_R_OK;
}

static enum wr_reason do_attack(struct wr_campaign *c, const char *seat,
                                const struct wr_campaign_cmd *k, json_t *ev,
                                struct wr_refusal *why)
{
    int p = wr_campaign_player(c, seat);
    /* 1) the attacker's turn, 2) a town of the map, 3) the attack rules */
    if (p != c->active)
        return not_yours(c, why, "this attack");
    int t = town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_R_UNKNOWN_TOWN;
    enum wr_reason r = wr_campaign_check_attack(c, p, t, why);
    if (r != WR_R_OK)
        return r;
    memset(&c->at, 0, sizeof c->at);
    c->at.attacker = p;
    c->at.defender = c->owner[t];
    c->at.target = t;
    c->at.counter = -1;
    c->at.contest_winner = -1;
    c->phase = WR_CP_COUNTER;
    event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "attack", "seat", seat, "defender",
                        pname(c->at.defender), "target", c->map.towns[t].name));
    return WR_R_OK;
}

/* A strategy-table roll for side: listed, a 6 waits for a choice, a
 * Hidden Ambush Force needs its note. */
static void add_strategy(struct wr_campaign *c, json_t *ev, int side, int reinforcement)
{
    int face = roll(c, ev, side_player(c, side), reinforcement ? "reinforcement" : "strategy");
    if (c->at.nstrategies >= WR_CAMPAIGN_STRATEGIES_MAX)
        return;         /* cannot happen: at most 1 + 2 per round are rolled */
    struct wr_campaign_strategy_won *s = &c->at.strategies[c->at.nstrategies++];
    s->side = side;
    s->roll = face;
    s->strategy = wr_campaign_strategy_of_roll(face);
    s->pending = s->strategy == WR_CS_BRILLIANT_GENERALSHIP;
    s->reinforcement = reinforcement;
    if (s->strategy == WR_CS_HIDDEN_AMBUSH)
        c->at.note[side].needed = 1;
    event(ev, json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", "strategy", "seat",
                        pname(side_player(c, side)), "roll", face, "strategy",
                        strategy_names[s->strategy], "from",
                        reinforcement ? "reinforcement" : "dice"));
}

static int strategy_pending(const struct wr_campaign *c, int side)
{
    for (int i = 0; i < c->at.nstrategies; i++)
        if (c->at.strategies[i].pending && (side < 0 || c->at.strategies[i].side == side))
            return 1;
    return 0;
}

static enum wr_reason do_counter(struct wr_campaign *c, const char *seat,
                                 const struct wr_campaign_cmd *k, json_t *ev,
                                 struct wr_refusal *why)
{
    /* 1) the defender's choice, 2) a town of the map, 3) the counter rules */
    if (wr_campaign_player(c, seat) != c->at.defender)
        return not_yours(c, why, "the choice of the attacker's town");
    int t = town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_R_UNKNOWN_TOWN;
    enum wr_reason r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, why);
    if (r != WR_R_OK)
        return r;
    c->at.counter = t;
    event(ev, json_pack("{s:s, s:s, s:s}", "type", "counter", "seat", seat, "town",
                        c->map.towns[t].name));
    /* Strategy: one die per town a side or its allies hold adjacent to
     * either disputed town (C3); more sixes rolls on the strategy table. */
    uint64_t zone = c->map.towns[c->at.target].adj | c->map.towns[t].adj;
    for (int i = 0; i < c->map.ntowns; i++) {
        if (!(zone >> i & 1u) || c->owner[i] < 0)
            continue;
        for (int side = 0; side < 2; side++)
            if (allies(c, c->owner[i], side_player(c, side)))
                c->at.ndice[side]++;
    }
    json_t *dice = json_object(), *sixes = json_object();
    for (int side = 0; side < 2; side++) {
        json_t *faces = json_array();
        for (int d = 0; d < c->at.ndice[side]; d++) {
            int f = roll(c, ev, side_player(c, side), "strategy_dice");
            c->at.faces[side][d] = (uint8_t)f;
            c->at.sixes[side] += f == 6;
            json_array_append_new(faces, json_integer(f));
        }
        json_object_set_new(dice, pname(side_player(c, side)), faces);
        json_object_set_new(sixes, pname(side_player(c, side)), json_integer(c->at.sixes[side]));
    }
    c->at.contest_winner = c->at.sixes[0] > c->at.sixes[1] ? 0
                         : c->at.sixes[1] > c->at.sixes[0] ? 1 : -1;
    json_t *e = json_pack("{s:s, s:o, s:o}", "type", "strategy_dice", "dice", dice, "sixes",
                          sixes);
    json_object_set_new(e, "winner", c->at.contest_winner >= 0
                                         ? json_string(pname(side_player(c, c->at.contest_winner)))
                                         : json_null());
    event(ev, e);
    if (c->at.contest_winner >= 0)
        add_strategy(c, ev, c->at.contest_winner, 0);
    c->phase = strategy_pending(c, -1) ? WR_CP_STRATEGY : WR_CP_TACTICS;
    return WR_R_OK;
}

static enum wr_reason do_choose_strategy(struct wr_campaign *c, const char *seat,
                                         const struct wr_campaign_cmd *k, json_t *ev,
                                         struct wr_refusal *why)
{
    int side = side_of(c, seat);
    /* 1) a side with a Brilliant Generalship to use */
    if (side < 0 || !strategy_pending(c, side))
        return not_yours(c, why, "choosing a strategy");
    for (int i = 0; i < c->at.nstrategies; i++) {
        struct wr_campaign_strategy_won *s = &c->at.strategies[i];
        if (s->pending && s->side == side) {
            s->pending = 0;
            s->strategy = k->strategy;
            if (k->strategy == WR_CS_HIDDEN_AMBUSH)
                c->at.note[side].needed = 1;
            break;
        }
    }
    event(ev, json_pack("{s:s, s:s, s:s}", "type", "strategy_chosen", "seat", seat, "strategy",
                        strategy_names[k->strategy]));
    if (!strategy_pending(c, -1))
        c->phase = WR_CP_TACTICS;
    return WR_R_OK;
}

static enum wr_reason do_commit(struct wr_campaign *c, const char *seat,
                                const struct wr_campaign_cmd *k, json_t *ev,
                                struct wr_refusal *why)
{
    int side = side_of(c, seat);
    /* 1) a side of the battle, 2) whose choice is not in yet. A commitment
     *    may be replaced until the choice is in (C9). */
    if (side < 0)
        return not_yours(c, why, "a tactic");
    if (c->at.tactic[side].chosen)
        return wr_refuse(why, WR_R_ALREADY_CHOSEN, "your tactic for round %d is already in",
                         c->at.nrounds + 1);
    struct wr_campaign_side_tactic *st = &c->at.tactic[side];
    st->committed = 1;
    memcpy(st->commitment, k->commitment, 65);
    event(ev, json_pack("{s:s, s:s, s:i, s:s}", "type", "tactic_committed", "seat", seat,
                        "round", c->at.nrounds + 1, "commitment", k->commitment));
    return WR_R_OK;
}

static json_t *side_tactic_json(const struct wr_campaign_side_tactic *t)
{
    json_t *o = json_pack("{s:s}", "choice", tactic_names[t->choice]);
    if (t->has_salt)
        json_object_set_new(o, "salt", json_string(t->salt));
    if (t->committed)
        json_object_set_new(o, "commitment", json_string(t->commitment));
    return o;
}

/* The outcome of a cell between attacker and defender, as JSON fields. */
static void outcome_json(const struct wr_campaign *c, json_t *o,
                         const struct wr_campaign_tactics_cell *cell)
{
    const char *blue = pname(c->at.attacker), *red = pname(c->at.defender);
    const char *by = cell->actor == WR_CA_BLUE ? blue : cell->actor == WR_CA_RED ? red : NULL;
    const char *other = cell->actor == WR_CA_BLUE ? red : cell->actor == WR_CA_RED ? blue : NULL;
    char text[160] = "";
    switch (cell->kind) {
    case WR_CK_NO_BATTLE: snprintf(text, sizeof text, "No battle"); break;
    case WR_CK_REINFORCE:
        if (by)
            snprintf(text, sizeof text, "%s reinforces", by);
        else
            snprintf(text, sizeof text, "Both reinforce");
        break;
    case WR_CK_OPEN: snprintf(text, sizeof text, "Open battle"); break;
    case WR_CK_MEETING: snprintf(text, sizeof text, "Meeting battle"); break;
    case WR_CK_SKIRMISH: snprintf(text, sizeof text, "Skirmish battle"); break;
    case WR_CK_AMBUSH: snprintf(text, sizeof text, "%s ambushes %s", by, other); break;
    case WR_CK_SURPRISE: snprintf(text, sizeof text, "%s surprises %s", by, other); break;
    case WR_CK_BREAK_THROUGH:
        snprintf(text, sizeof text, "%s attempts to break through %s", by, other);
        break;
    case WR_CK_ATTACKS_DEFENCES:
        snprintf(text, sizeof text, "%s attacks %s's defences", by, other);
        break;
    case WR_CK_FLANK_MARCH: snprintf(text, sizeof text, "%s turns %s's flank", by, other); break;
    case WR_CK_LAST_STAND: snprintf(text, sizeof text, "%s makes a last stand", by); break;
    }
    json_object_set_new(o, "result", json_string(kind_names[cell->kind]));
    if (cell->kind == WR_CK_REINFORCE) {
        json_t *r = json_array();
        if (cell->actor == WR_CA_BLUE || cell->actor == WR_CA_BOTH)
            json_array_append_new(r, json_string(blue));
        if (cell->actor == WR_CA_RED || cell->actor == WR_CA_BOTH)
            json_array_append_new(r, json_string(red));
        json_object_set_new(o, "reinforces", r);
    } else if (by) {
        json_object_set_new(o, "by", json_string(by));
        json_object_set_new(o, "against", json_string(other));
    }
    if (cell->kind == WR_CK_ATTACKS_DEFENCES) {
        json_object_set_new(o, "walls_inches", json_integer(24));
        json_object_set_new(o, "walls_for", json_string(other));
    }
    json_object_set_new(o, "why", json_string(cell->why));
    json_object_set_new(o, "text", json_string(text));
}

/* Record of an attack that ends; the sealed notes of the attack are shown
 * to everyone then (C12). */
static void end_attack(struct wr_campaign *c, json_t *ev, int winner_side, const int vp[2],
                       int settled)
{
    for (int side = 0; side < 2; side++) {
        struct wr_campaign_note *n = &c->at.note[side];
        if (n->sealed && !n->revealed) {
            n->revealed = 1;
            event(ev, json_pack("{s:s, s:s, s:s, s:b}", "type", "ambush_revealed", "seat",
                                pname(side_player(c, side)), "note", n->text, "after_battle", 1));
        }
    }
    struct wr_campaign_past *h = &c->history[c->nhistory % WR_CAMPAIGN_HISTORY];
    memset(h, 0, sizeof *h);
    h->turn = c->turn;
    h->attacker = c->at.attacker;
    h->defender = c->at.defender;
    h->target = c->at.target;
    h->counter = c->at.counter;
    h->battle = c->at.battle;
    if (c->at.battle) {
        const struct wr_campaign_tactics_cell *cell =
            &tactics_table[c->at.battle_cell / WR_CT_COUNT][c->at.battle_cell % WR_CT_COUNT];
        h->kind = cell->kind;
        h->actor = cell->actor;
        h->vp[0] = vp[0];
        h->vp[1] = vp[1];
    }
    h->winner = winner_side;
    h->settled = settled;
    h->rounds = c->at.nrounds;
    c->nhistory++;
    if (!check_conquest(c, ev))
        pass_turn(c, ev);
}

static void resolve_round(struct wr_campaign *c, json_t *ev)
{
    struct wr_campaign_round *r = &c->at.rounds[c->at.nrounds++];
    r->side[0] = c->at.tactic[0];
    r->side[1] = c->at.tactic[1];
    r->result = r->side[0].choice * WR_CT_COUNT + r->side[1].choice;
    const struct wr_campaign_tactics_cell *cell =
        &tactics_table[r->side[0].choice][r->side[1].choice];
    memset(c->at.tactic, 0, sizeof c->at.tactic);
    /* Both choices are in: now, and only now, they are shown. */
    json_t *e = json_pack("{s:s, s:i, s:o, s:o}", "type", "tactics", "round", c->at.nrounds,
                          "attacker", side_tactic_json(&r->side[0]), "defender",
                          side_tactic_json(&r->side[1]));
    outcome_json(c, e, cell);
    event(ev, e);
    if (is_battle(cell->kind)) {
        c->at.battle = 1;
        c->at.battle_cell = r->result;
        c->phase = WR_CP_BATTLE;
        json_t *b = json_pack("{s:s, s:i}", "type", "battle", "points", WR_CAMPAIGN_POINTS);
        outcome_json(c, b, cell);
        event(ev, b);
        return;
    }
    /* No battle: choose again, unless the round limit (C10) is reached. */
    if (c->at.nrounds >= c->max_rounds) {
        event(ev, json_pack("{s:s, s:i}", "type", "attack_called_off", "rounds", c->at.nrounds));
        int vp[2] = { 0, 0 };
        end_attack(c, ev, -1, vp, 0);
        return;
    }
    if (cell->kind == WR_CK_REINFORCE) {
        /* "If you regroup successfully, you get another draft of
         * reinforcements allowing you a free roll on the strategy table." */
        if (cell->actor == WR_CA_BLUE || cell->actor == WR_CA_BOTH)
            add_strategy(c, ev, 0, 1);
        if (cell->actor == WR_CA_RED || cell->actor == WR_CA_BOTH)
            add_strategy(c, ev, 1, 1);
    }
    c->phase = strategy_pending(c, -1) ? WR_CP_STRATEGY : WR_CP_TACTICS;
}

static enum wr_reason do_tactic(struct wr_campaign *c, const char *seat,
                                const struct wr_campaign_cmd *k, json_t *ev,
                                struct wr_refusal *why)
{
    int side = side_of(c, seat);
    /* 1) a side of the battle, 2) whose choice is not in, 3) not its last
     *    choice after no battle, 4) matching its commitment, if it made one */
    if (side < 0)
        return not_yours(c, why, "a tactic");
    struct wr_campaign_side_tactic *st = &c->at.tactic[side];
    if (st->chosen)
        return wr_refuse(why, WR_R_ALREADY_CHOSEN, "your tactic for round %d is already in",
                         c->at.nrounds + 1);
    if (c->at.nrounds > 0 && c->at.rounds[c->at.nrounds - 1].side[side].choice == k->tactic)
        return wr_refuse(why, WR_R_SAME_TACTIC, "you chose %s in round %d: after no battle "
                         "each side chooses differently from its last choice",
                         tactic_names[k->tactic], c->at.nrounds);
    if (st->committed) {
        char h[65];
        if (k->salt == NULL)
            return wr_refuse(why, WR_R_COMMITMENT_MISMATCH, "you committed to a hash: send "
                             "the choice with its salt");
        if (wr_campaign_commitment(tactic_names[k->tactic], k->salt, h) != 0 ||
            strcmp(h, st->commitment) != 0)
            return wr_refuse(why, WR_R_COMMITMENT_MISMATCH, "SHA-256 of \"%s\" and the salt is "
                             "%.12s..., not the commitment %.12s...", tactic_names[k->tactic], h,
                             st->commitment);
    }
    st->chosen = 1;
    st->choice = k->tactic;
    st->has_salt = k->salt != NULL;
    snprintf(st->salt, sizeof st->salt, "%s", k->salt ? k->salt : "");
    json_t *e = json_pack("{s:s, s:s, s:i, s:s}", "type", "tactic_chosen", "seat", seat, "round",
                          c->at.nrounds + 1, "choice", tactic_names[k->tactic]);
    if (k->salt)
        json_object_set_new(e, "salt", json_string(k->salt));
    event(ev, e);
    if (c->at.tactic[1 - side].chosen)
        resolve_round(c, ev);
    return WR_R_OK;
}

static enum wr_reason do_seal_ambush(struct wr_campaign *c, const char *seat,
                                     const struct wr_campaign_cmd *k, json_t *ev,
                                     struct wr_refusal *why)
{
    int side = side_of(c, seat);
    /* 1) a side with a Hidden Ambush Force, 2) its note not yet written */
    if (side < 0 || !c->at.note[side].needed)
        return wr_refuse(why, WR_R_NO_AMBUSH, "you have no hidden ambush force in this battle");
    struct wr_campaign_note *n = &c->at.note[side];
    if (n->sealed)
        return wr_refuse(why, WR_R_AMBUSH_SEALED, "your ambush note is already written");
    n->sealed = 1;
    snprintf(n->text, sizeof n->text, "%s", k->note);
    event(ev, json_pack("{s:s, s:s, s:s}", "type", "ambush_sealed", "seat", seat, "note",
                        k->note));
    return WR_R_OK;
}

static enum wr_reason do_reveal_ambush(struct wr_campaign *c, const char *seat,
                                       const struct wr_campaign_cmd *k, json_t *ev,
                                       struct wr_refusal *why)
{
    int own = side_of(c, seat), side = -1;
    /* 1) the ambusher (its own note) or the referee (any note), 2) a note
     *    written and not yet shown */
    if (k->seat) {
        int p = wr_campaign_player(c, k->seat);
        side = p < 0 ? -1 : p == c->at.attacker ? 0 : p == c->at.defender ? 1 : -1;
        if (side < 0)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%.16s is not a side of this battle",
                             k->seat);
        if (own != side && !is_referee(c, seat))
            return wr_refuse(why, WR_R_NOT_YOUR_TURN, "only the ambusher or the referee shows "
                             "an ambush note");
    } else if (own >= 0) {
        side = own;
    } else if (is_referee(c, seat)) {
        for (int s = 0; s < 2; s++)
            if (c->at.note[s].sealed && !c->at.note[s].revealed)
                side = side < 0 ? s : 2;
        if (side == 2)
            return wr_refuse(why, WR_R_BAD_COMMAND, "both sides have a sealed note: name the "
                             "\"seat\"");
        if (side < 0)
            return wr_refuse(why, WR_R_NO_AMBUSH, "there is no sealed ambush note");
    } else {
        return wr_refuse(why, WR_R_NOT_YOUR_TURN, "only the ambusher or the referee shows an "
                         "ambush note");
    }
    struct wr_campaign_note *n = &c->at.note[side];
    if (!n->sealed || n->revealed)
        return wr_refuse(why, WR_R_NO_AMBUSH, "%s has no sealed ambush note to show",
                         pname(side_player(c, side)));
    n->revealed = 1;
    event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "ambush_revealed", "seat",
                        pname(side_player(c, side)), "note", n->text, "by", seat));
    return WR_R_OK;
}

/* Apply the agreed (or settled) victory points (C11). */
static void finish_battle(struct wr_campaign *c, json_t *ev, const int vp[2], int settled)
{
    int margin = vp[0] > vp[1] ? vp[0] - vp[1] : vp[1] - vp[0];
    int winner = vp[0] > vp[1] ? 0 : vp[1] > vp[0] ? 1 : -1;
    int takes = winner >= 0 && margin >= WR_CAMPAIGN_MARGIN;
    json_t *e = json_pack("{s:s, s:i, s:i, s:i, s:b, s:b}", "type", "battle_result", "attacker",
                          vp[0], "defender", vp[1], "margin", margin, "towns_change", takes,
                          "settled", settled);
    json_object_set_new(e, "winner", winner >= 0 ? json_string(pname(side_player(c, winner)))
                                                 : json_null());
    event(ev, e);
    if (takes) {
        int w = side_player(c, winner), l = side_player(c, 1 - winner);
        int town = winner == 0 ? c->at.target : c->at.counter;
        c->owner[town] = w;
        event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "town_taken", "seat", pname(w),
                            "town", c->map.towns[town].name, "from", pname(l)));
        if (towns_of(c, l) == 0)
            event(ev, json_pack("{s:s, s:s}", "type", "eliminated", "seat", pname(l)));
    }
    end_attack(c, ev, takes ? winner : -1, vp, settled);
}

static enum wr_reason do_report(struct wr_campaign *c, const char *seat,
                                const struct wr_campaign_cmd *k, json_t *ev,
                                struct wr_refusal *why)
{
    int side = side_of(c, seat);
    /* 1) a side of the battle, 2) every hidden ambush force written down.
     *    A side may report again until the reports agree (C11). */
    if (side < 0)
        return not_yours(c, why, "reporting this battle");
    for (int s = 0; s < 2; s++)
        if (c->at.note[s].needed && !c->at.note[s].sealed)
            return wr_refuse(why, WR_R_AMBUSH_NOTE_MISSING, "%s has not written down the "
                             "hidden ambush force yet", pname(side_player(c, s)));
    c->at.reported[side] = 1;
    c->at.report[side][0] = k->vp[0];
    c->at.report[side][1] = k->vp[1];
    event(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "report", "seat", seat, "attacker",
                        k->vp[0], "defender", k->vp[1]));
    if (!c->at.reported[0] || !c->at.reported[1])
        return WR_R_OK;
    if (c->at.report[0][0] == c->at.report[1][0] && c->at.report[0][1] == c->at.report[1][1]) {
        c->at.disputed = 0;
        finish_battle(c, ev, c->at.report[0], 0);
        return WR_R_OK;
    }
    c->at.disputed = 1;
    event(ev, json_pack("{s:s, s:s?}", "type", "disputed", "referee",
                        c->has_referee ? "referee" : NULL));
    return WR_R_OK;
}

static enum wr_reason do_settle(struct wr_campaign *c, const char *seat,
                                const struct wr_campaign_cmd *k, json_t *ev,
                                struct wr_refusal *why)
{
    /* 1) the referee, 2) on a disputed result */
    if (!is_referee(c, seat))
        return wr_refuse(why, WR_R_NOT_YOUR_TURN, "only the referee settles a dispute");
    if (!c->at.disputed)
        return wr_refuse(why, WR_R_NOT_DISPUTED, "the reports do not disagree");
    event(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "settled", "seat", seat, "attacker",
                        k->vp[0], "defender", k->vp[1]));
    c->at.disputed = 0;
    finish_battle(c, ev, k->vp, 1);
    return WR_R_OK;
}

/* The phase machine of campaign.h, as data: which command each phase takes. */
static const struct transition {
    enum wr_campaign_phase phase;
    enum wr_campaign_cmd_type cmd;
    handler run;
} transitions[] = {
    { WR_CP_START, WR_CC_START, do_start },
    { WR_CP_DRAFT, WR_CC_CHOOSE_TOWN, do_choose_town },
    { WR_CP_ATTACK, WR_CC_ATTACK, do_attack },
    { WR_CP_COUNTER, WR_CC_COUNTER, do_counter },
    { WR_CP_STRATEGY, WR_CC_CHOOSE_STRATEGY, do_choose_strategy },
    { WR_CP_STRATEGY, WR_CC_SEAL_AMBUSH, do_seal_ambush },
    { WR_CP_TACTICS, WR_CC_SEAL_AMBUSH, do_seal_ambush },
    { WR_CP_TACTICS, WR_CC_COMMIT, do_commit },
    { WR_CP_TACTICS, WR_CC_TACTIC, do_tactic },
    { WR_CP_BATTLE, WR_CC_SEAL_AMBUSH, do_seal_ambush },
    { WR_CP_BATTLE, WR_CC_REVEAL_AMBUSH, do_reveal_ambush },
    { WR_CP_BATTLE, WR_CC_REPORT, do_report },
    { WR_CP_BATTLE, WR_CC_SETTLE, do_settle },
};

static const char *const phase_names[] = { "start", "draft", "attack", "counter", "strategy",
                                           "tactics", "battle", "over" };

enum wr_reason wr_campaign_apply(struct wr_campaign *c, const char *seat, const json_t *cmd,
                                 json_t **events, struct wr_refusal *why)
{
    struct wr_campaign_cmd k;
    *events = NULL;
    /* 1) the game runs, 2) the command is well formed, 3) this phase takes
     *    it; then the handler checks the seat and the rules. */
    if (c->phase == WR_CP_OVER)
        return wr_refuse(why, WR_R_GAME_OVER, "the campaign is over");
    enum wr_reason r = wr_campaign_parse_command(cmd, &k, why);
    if (r != WR_R_OK)
        return r;
    const struct transition *tr = NULL;
    for (size_t i = 0; i < sizeof transitions / sizeof transitions[0] && !tr; i++)
        if (transitions[i].phase == c->phase && transitions[i].cmd == k.type)
            tr = &transitions[i];
    if (tr == NULL)
        return wr_refuse(why, WR_R_WRONG_PHASE, "%s is not taken in the %s phase",
                         shapes[k.type].name, phase_names[c->phase]);
    if (wr_campaign_player(c, seat) < 0 && !is_referee(c, seat))
        return wr_refuse(why, WR_R_NOT_YOUR_TURN, "'%.16s' is not a seat of this campaign",
                         seat ? seat : "(none)");
    json_t *ev = json_array();
    if (ev == NULL)
        return wr_refuse(why, WR_R_BAD_COMMAND, "out of memory");
    r = tr->run(c, seat, &k, ev, why);
    if (r != WR_R_OK) {
        json_decref(ev);
        return r;
    }
#ifndef NDEBUG
    struct wr_refusal broken;
    if (wr_campaign_check(c, &broken) != 0)
        assert(!"campaign invariant broken after a command (see wr_campaign_check)");
#endif
    *events = ev;
    return WR_R_OK;
}

/* --- who acts --------------------------------------------------------------------- */

struct waiting {
    int n;
    const char *seat[WR_CAMPAIGN_PLAYERS_MAX + 1];
    const char *what[WR_CAMPAIGN_PLAYERS_MAX + 1];
};

static void wait_for(struct waiting *w, const char *seat, const char *what)
{
    if (w->n < WR_CAMPAIGN_PLAYERS_MAX + 1) {
        w->seat[w->n] = seat;
        w->what[w->n++] = what;
    }
}

static void waiting(const struct wr_campaign *c, struct waiting *w)
{
    memset(w, 0, sizeof *w);
    switch (c->phase) {
    case WR_CP_START: wait_for(w, pname(0), "start"); break;
    case WR_CP_DRAFT: wait_for(w, pname(c->active), "choose_town"); break;
    case WR_CP_ATTACK: wait_for(w, pname(c->active), "attack"); break;
    case WR_CP_COUNTER: wait_for(w, pname(c->at.defender), "counter"); break;
    case WR_CP_STRATEGY:
        for (int s = 0; s < 2; s++)
            if (strategy_pending(c, s))
                wait_for(w, pname(side_player(c, s)), "choose_strategy");
        break;
    case WR_CP_TACTICS:
        for (int s = 0; s < 2; s++)
            if (!c->at.tactic[s].chosen)
                wait_for(w, pname(side_player(c, s)), "tactic");
        break;
    case WR_CP_BATTLE: {
        int notes = 0;
        for (int s = 0; s < 2; s++)
            if (c->at.note[s].needed && !c->at.note[s].sealed) {
                wait_for(w, pname(side_player(c, s)), "seal_ambush");
                notes = 1;
            }
        if (notes)
            break;
        if (c->at.disputed && c->has_referee)
            wait_for(w, "referee", "settle");
        for (int s = 0; s < 2; s++)
            if (c->at.disputed || !c->at.reported[s])
                wait_for(w, pname(side_player(c, s)), "report");
        break;
    }
    case WR_CP_OVER: break;
    }
}

const char *wr_campaign_awaited(const struct wr_campaign *c)
{
    struct waiting w;
    waiting(c, &w);
    return w.n ? w.seat[0] : NULL;
}

/* --- projection ---------------------------------------------------------------------- */

static json_t *seat_or_null(int p)
{
    return p >= 0 ? json_string(pname(p)) : json_null();
}

static json_t *strategies_json(const struct wr_campaign *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->at.nstrategies; i++) {
        const struct wr_campaign_strategy_won *s = &c->at.strategies[i];
        json_t *o = json_pack("{s:s, s:i, s:s, s:s}", "seat", pname(side_player(c, s->side)),
                              "roll", s->roll, "strategy", strategy_names[s->strategy], "from",
                              s->reinforcement ? "reinforcement" : "dice");
        if (s->roll == 6)
            json_object_set_new(o, "brilliant_generalship", json_true());
        if (s->pending)
            json_object_set_new(o, "pending", json_true());
        json_array_append_new(a, o);
    }
    return a;
}

/* The sealed tactic of side as viewer sees it: its owner sees everything
 * it sent; anyone else only whether it is in. */
static json_t *sealed_tactic_json(const struct wr_campaign *c, int side, int viewer_side)
{
    const struct wr_campaign_side_tactic *t = &c->at.tactic[side];
    json_t *o = json_pack("{s:b}", "submitted", t->chosen || t->committed);
    if (side != viewer_side)
        return o;
    if (t->committed)
        json_object_set_new(o, "commitment", json_string(t->commitment));
    if (t->chosen) {
        json_object_set_new(o, "choice", json_string(tactic_names[t->choice]));
        if (t->has_salt)
            json_object_set_new(o, "salt", json_string(t->salt));
    }
    return o;
}

static json_t *attack_json(const struct wr_campaign *c, int viewer_side)
{
    const struct wr_campaign_attack *a = &c->at;
    const char *pa = pname(a->attacker), *pd = pname(a->defender);
    json_t *o = json_pack("{s:s, s:s, s:s}", "attacker", pa, "defender", pd, "target",
                          c->map.towns[a->target].name);
    json_object_set_new(o, "counter", a->counter >= 0 ? json_string(c->map.towns[a->counter].name)
                                                      : json_null());
    if (a->counter >= 0) {
        json_t *dice = json_object(), *sixes = json_object();
        for (int s = 0; s < 2; s++) {
            json_t *f = json_array();
            for (int d = 0; d < a->ndice[s]; d++)
                json_array_append_new(f, json_integer(a->faces[s][d]));
            json_object_set_new(dice, s ? pd : pa, f);
            json_object_set_new(sixes, s ? pd : pa, json_integer(a->sixes[s]));
        }
        json_object_set_new(o, "dice", dice);
        json_object_set_new(o, "sixes", sixes);
        json_object_set_new(o, "contest_winner", a->contest_winner >= 0
                                                     ? json_string(a->contest_winner ? pd : pa)
                                                     : json_null());
    }
    json_object_set_new(o, "strategies", strategies_json(c));
    json_object_set_new(o, "round", json_integer(a->nrounds + (a->battle ? 0 : 1)));
    json_t *rounds = json_array();
    for (int i = 0; i < a->nrounds; i++) {
        const struct wr_campaign_round *r = &a->rounds[i];
        json_t *ro = json_pack("{s:i, s:o, s:o}", "round", i + 1, "attacker",
                               side_tactic_json(&r->side[0]), "defender",
                               side_tactic_json(&r->side[1]));
        outcome_json(c, ro, &tactics_table[r->result / WR_CT_COUNT][r->result % WR_CT_COUNT]);
        json_array_append_new(rounds, ro);
    }
    json_object_set_new(o, "rounds", rounds);
    json_t *tactics = json_object();
    json_object_set_new(tactics, pa, sealed_tactic_json(c, 0, viewer_side));
    json_object_set_new(tactics, pd, sealed_tactic_json(c, 1, viewer_side));
    json_object_set_new(o, "tactics", tactics);
    if (a->battle) {
        json_t *b = json_pack("{s:i}", "points", WR_CAMPAIGN_POINTS);
        outcome_json(c, b, &tactics_table[a->battle_cell / WR_CT_COUNT]
                                           [a->battle_cell % WR_CT_COUNT]);
        json_object_set_new(o, "battle", b);
    } else {
        json_object_set_new(o, "battle", json_null());
    }
    json_t *amb = json_object();
    for (int s = 0; s < 2; s++) {
        const struct wr_campaign_note *n = &a->note[s];
        if (!n->needed)
            continue;
        json_t *no = json_pack("{s:b, s:b}", "sealed", n->sealed, "revealed", n->revealed);
        if (n->sealed && (n->revealed || s == viewer_side))
            json_object_set_new(no, "note", json_string(n->text));
        json_object_set_new(amb, s ? pd : pa, no);
    }
    json_object_set_new(o, "ambush", amb);
    json_t *reports = json_object();
    for (int s = 0; s < 2; s++)
        json_object_set_new(reports, s ? pd : pa,
                            a->reported[s] ? json_pack("{s:i, s:i}", "attacker", a->report[s][0],
                                                       "defender", a->report[s][1])
                                           : json_null());
    json_object_set_new(o, "reports", reports);
    json_object_set_new(o, "disputed", json_boolean(a->disputed));
    return o;
}

static json_t *history_json(const struct wr_campaign *c)
{
    json_t *a = json_array();
    int from = c->nhistory > WR_CAMPAIGN_HISTORY ? c->nhistory - WR_CAMPAIGN_HISTORY : 0;
    for (int i = from; i < c->nhistory; i++) {
        const struct wr_campaign_past *h = &c->history[i % WR_CAMPAIGN_HISTORY];
        json_t *o = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:i}", "attack", i + 1, "turn",
                              h->turn, "attacker", pname(h->attacker), "defender",
                              pname(h->defender), "target", c->map.towns[h->target].name,
                              "counter", c->map.towns[h->counter].name, "rounds", h->rounds);
        if (h->battle) {
            const char *by = h->actor == WR_CA_BLUE ? pname(h->attacker)
                           : h->actor == WR_CA_RED ? pname(h->defender) : NULL;
            json_object_set_new(o, "battle", json_string(kind_names[h->kind]));
            json_object_set_new(o, "by", by ? json_string(by) : json_null());
            json_object_set_new(o, "vp", json_pack("{s:i, s:i}", "attacker", h->vp[0],
                                                   "defender", h->vp[1]));
            json_object_set_new(o, "settled", json_boolean(h->settled));
        } else {
            json_object_set_new(o, "battle", json_null());
        }
        json_object_set_new(o, "towns_to", h->winner >= 0
                                               ? json_string(pname(h->winner ? h->defender
                                                                             : h->attacker))
                                               : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

json_t *wr_campaign_project(const struct wr_campaign *c, const char *seat)
{
    int viewer_side = side_of(c, seat);
    json_t *players = json_array(), *alliances = json_array(), *towns = json_object(),
           *held = json_object();
    for (int p = 0; p < c->nplayers; p++) {
        json_array_append_new(players, json_string(pname(p)));
        json_object_set_new(held, pname(p), json_integer(count_bits(towns_of(c, p))));
        if (c->group[p] != p)
            continue;
        json_t *al = json_array();
        for (int q = p; q < c->nplayers; q++)
            if (c->group[q] == p)
                json_array_append_new(al, json_string(pname(q)));
        if (json_array_size(al) > 1)
            json_array_append_new(alliances, al);
        else
            json_decref(al);
    }
    for (int t = 0; t < c->map.ntowns; t++)
        json_object_set_new(towns, c->map.towns[t].name, seat_or_null(c->owner[t]));
    char commitment[65];
    wr_dice_commitment(c->seed, commitment);
    json_t *dice = json_pack("{s:s, s:I}", "commitment", commitment, "rolls",
                             (json_int_t)c->rolls);
    if (c->phase == WR_CP_OVER) {
        char hex[65];
        wr_dice_seed_hex(c->seed, hex);
        json_object_set_new(dice, "seed", json_string(hex));
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:i, s:o, s:s, s:i, s:o, s:o}", "ruleset",
                          "campaign", "map", c->map.name, "players", players, "alliances",
                          alliances, "max_rounds", c->max_rounds, "dice", dice, "phase",
                          phase_names[c->phase], "turn", c->turn, "towns", towns, "held", held);
    json_object_set_new(o, "referee", c->has_referee ? json_string("referee") : json_null());
    json_object_set_new(o, "max_turns", c->max_turns ? json_integer(c->max_turns) : json_null());
    json_object_set_new(o, "first", seat_or_null(c->first));
    json_object_set_new(o, "active", c->phase >= WR_CP_DRAFT && c->phase <= WR_CP_BATTLE
                                         ? seat_or_null(c->active) : json_null());
    json_object_set_new(o, "attack", c->phase >= WR_CP_COUNTER && c->phase <= WR_CP_BATTLE
                                         ? attack_json(c, viewer_side) : json_null());
    json_object_set_new(o, "history", history_json(c));
    struct waiting w;
    waiting(c, &w);
    if (w.n) {
        json_t *seats = json_object();
        for (int i = 0; i < w.n; i++)
            json_object_set_new(seats, w.seat[i], json_string(w.what[i]));
        json_object_set_new(o, "awaiting", json_pack("{s:s, s:s, s:o}", "seat", w.seat[0],
                                                     "what", w.what[0], "seats", seats));
    } else {
        json_object_set_new(o, "awaiting", json_null());
    }
    json_object_set_new(o, "winner", c->winner[0] ? json_string(c->winner) : json_null());
    json_object_set_new(o, "end", c->end ? json_string(c->end) : json_null());
    return o;
}

/* Events that carry a sealed thing, and the keys only their seat may see. */
static int sealed_event(const char *type)
{
    return type && (strcmp(type, "tactic_committed") == 0 || strcmp(type, "tactic_chosen") == 0 ||
                    strcmp(type, "ambush_sealed") == 0);
}

json_t *wr_campaign_project_events(const struct wr_campaign *c, const char *seat,
                                   const json_t *events)
{
    static const char *const secret_keys[] = { "choice", "salt", "commitment", "note" };
    (void)c;
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        json_t *copy = json_deep_copy(e);
        const char *owner = json_string_value(json_object_get(e, "seat"));
        if (sealed_event(json_string_value(json_object_get(e, "type"))) &&
            (seat == NULL || owner == NULL || strcmp(seat, owner) != 0))
            for (size_t k = 0; k < sizeof secret_keys / sizeof secret_keys[0]; k++)
                json_object_del(copy, secret_keys[k]);
        json_array_append_new(out, copy);
    }
    return out;
}

/* --- invariants ------------------------------------------------------------------------ */

static int broken(struct wr_refusal *why, const char *what)
{
    wr_refuse(why, WR_R_BAD_COMMAND, "campaign invariant: %s", what);
    return -1;
}

int wr_campaign_check(const struct wr_campaign *c, struct wr_refusal *why)
{
    int n = c->nplayers, owned = 0;
    if (n < WR_CAMPAIGN_PLAYERS_MIN || n > WR_CAMPAIGN_PLAYERS_MAX)
        return broken(why, "2 to 8 players");
    if ((int)c->phase < WR_CP_START || c->phase > WR_CP_OVER)
        return broken(why, "a known phase");
    for (int p = 0; p < n; p++)
        if (c->group[p] < 0 || c->group[p] > p || c->group[c->group[p]] != c->group[p])
            return broken(why, "a group is named by its lowest player");
    for (int t = 0; t < c->map.ntowns; t++) {
        if (c->owner[t] < -1 || c->owner[t] >= n)
            return broken(why, "owners are players or nobody");
        owned += c->owner[t] >= 0;
    }
    if (c->phase == WR_CP_START && (owned || c->first >= 0))
        return broken(why, "nothing chosen before the start");
    if (c->phase == WR_CP_DRAFT && (owned == c->map.ntowns || c->first < 0 || c->active < 0 ||
                                    c->active >= n || c->active != (c->first + owned) % n))
        return broken(why, "the draft goes round from the first chooser");
    if (c->phase >= WR_CP_ATTACK && c->phase <= WR_CP_BATTLE) {
        if (owned != c->map.ntowns)
            return broken(why, "every town is held after the draft");
        if (c->turn < 1 || (c->max_turns && c->turn > c->max_turns))
            return broken(why, "the turn is within the limit");
        if (c->active < 0 || c->active >= n || towns_of(c, c->active) == 0)
            return broken(why, "the active player holds a town");
    }
    if (c->phase == WR_CP_ATTACK && !wr_campaign_can_attack(c, c->active))
        return broken(why, "the attacker has a town to attack");
    if (c->phase >= WR_CP_COUNTER && c->phase <= WR_CP_BATTLE) {
        const struct wr_campaign_attack *a = &c->at;
        if (a->attacker != c->active || a->defender < 0 || a->defender >= n ||
            allies(c, a->attacker, a->defender))
            return broken(why, "the active player attacks an enemy");
        if (a->target < 0 || a->target >= c->map.ntowns ||
            (!a->battle && c->owner[a->target] != a->defender))
            return broken(why, "the target is the defender's");
        if ((c->phase == WR_CP_COUNTER) != (a->counter < 0))
            return broken(why, "the counter town is chosen after the counter phase");
        if (a->counter >= 0 && c->owner[a->counter] != a->attacker)
            return broken(why, "the counter town is the attacker's");
        if ((c->phase == WR_CP_STRATEGY) != strategy_pending(c, -1))
            return broken(why, "the strategy phase is while a choice is pending");
        if ((c->phase == WR_CP_BATTLE) != a->battle)
            return broken(why, "the battle phase is after a battle result");
        if (a->nrounds > c->max_rounds + 1 || (!a->battle && a->nrounds >= c->max_rounds))
            return broken(why, "the rounds stay within the limit");
        if (c->phase == WR_CP_TACTICS && a->tactic[0].chosen && a->tactic[1].chosen)
            return broken(why, "both tactics in means the round is resolved");
        for (int i = 0; i < a->nrounds; i++)
            if (i > 0 && (a->rounds[i].side[0].choice == a->rounds[i - 1].side[0].choice ||
                          a->rounds[i].side[1].choice == a->rounds[i - 1].side[1].choice))
                return broken(why, "no side repeats its last tactic");
    }
    if (c->phase == WR_CP_OVER && (c->winner[0] == '\0' || c->end == NULL))
        return broken(why, "a finished campaign has a result");
    if (c->phase != WR_CP_OVER && c->winner[0])
        return broken(why, "no result while running");
    return 0;
}

/* --- creation ------------------------------------------------------------------------ */

static int bad_option(struct wr_refusal *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fill why with a bad_options refusal; returns -1. */
static int bad_option(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse(why, WR_R_BAD_OPTIONS, fmt, ap);
    va_end(ap);
    return -1;
}

/* Read the options into c (players, referee, limits, alliances). */
static int read_options(struct wr_campaign *c, const json_t *o, struct wr_refusal *why)
{
    c->nplayers = 2;
    c->max_rounds = WR_CAMPAIGN_ROUNDS_DEFAULT;
    if (o != NULL && !json_is_object(o))
        return bad_option(why, "options must be an object");
    json_t *v;
    if ((v = json_object_get(o, "players")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < WR_CAMPAIGN_PLAYERS_MIN ||
            json_integer_value(v) > WR_CAMPAIGN_PLAYERS_MAX)
            return bad_option(why, "players is a whole number from 2 to 8");
        c->nplayers = (int)json_integer_value(v);
    }
    if ((v = json_object_get(o, "referee")) != NULL) {
        if (!json_is_boolean(v))
            return bad_option(why, "referee is true or false");
        c->has_referee = json_is_true(v);
    }
    if ((v = json_object_get(o, "max_turns")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > WR_CAMPAIGN_TURNS_MAX)
            return bad_option(why, "max_turns is a whole number from 1 to 10000");
        c->max_turns = (int)json_integer_value(v);
    }
    if ((v = json_object_get(o, "max_rounds")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > WR_CAMPAIGN_ROUNDS_MAX)
            return bad_option(why, "max_rounds is a whole number from 1 to 20");
        c->max_rounds = (int)json_integer_value(v);
    }
    for (int p = 0; p < c->nplayers; p++)
        c->group[p] = p;
    if ((v = json_object_get(o, "alliances")) != NULL) {
        int in[WR_CAMPAIGN_PLAYERS_MAX] = { 0 };
        size_t i, k;
        json_t *al, *s;
        if (!json_is_array(v))
            return bad_option(why, "alliances is a list of lists of seats, "
                              "like [[\"p1\",\"p3\"]]");
        json_array_foreach(v, i, al) {
            if (!json_is_array(al) || json_array_size(al) < 2)
                return bad_option(why, "an alliance is a list of at least two seats");
            int g = WR_CAMPAIGN_PLAYERS_MAX;
            json_array_foreach(al, k, s) {
                int p = wr_campaign_player(c, json_string_value(s));
                if (p < 0)
                    return bad_option(why, "alliances: '%.16s' is not a player of this game",
                                      json_is_string(s) ? json_string_value(s) : "?");
                if (in[p])
                    return bad_option(why, "alliances: %s is in more than one alliance "
                                      "(or twice in one)", pname(p));
                in[p] = 1;
                g = p < g ? p : g;
            }
            json_array_foreach(al, k, s)
                c->group[wr_campaign_player(c, json_string_value(s))] = g;
        }
        int groups = 0;
        for (int p = 0; p < c->nplayers; p++)
            groups += c->group[p] == p;
        if (groups < 2)
            return bad_option(why, "alliances: every player in one alliance leaves "
                              "nobody to fight");
    }
    if (c->map.ntowns < c->nplayers)
        return bad_option(why, "the map has %d towns, too few for %d players", c->map.ntowns,
                          c->nplayers);
    return 0;
}

struct wr_campaign *wr_campaign_new(const struct wr_campaign_map *map, const json_t *options,
                                    const char *game_id, const uint8_t seed[32],
                                    struct wr_refusal *why)
{
    if (game_id == NULL || strlen(game_id) > WR_DICE_ID_MAX ||
        wr_dice_roll(seed, game_id, 0) < 1) {
        wr_refuse(why, WR_R_BAD_OPTIONS, "the game id must be 1 to 63 bytes");
        return NULL;
    }
    struct wr_campaign *c = calloc(1, sizeof *c);
    if (c == NULL) {
        wr_refuse(why, WR_R_BAD_OPTIONS, "out of memory");
        return NULL;
    }
    c->map = *map;
    snprintf(c->game_id, sizeof c->game_id, "%s", game_id);
    memcpy(c->seed, seed, sizeof c->seed);
    if (read_options(c, options, why) != 0) {
        free(c);
        return NULL;
    }
    int s = 0;
    for (; s < c->nplayers; s++)
        c->seats[s] = seat_names[s];
    if (c->has_referee)
        c->seats[s++] = "referee";
    c->seats[s] = NULL;
    for (int t = 0; t < WR_CAMPAIGN_TOWNS_MAX; t++)
        c->owner[t] = -1;
    c->first = c->active = -1;
    c->phase = WR_CP_START;
    return c;
}

void wr_campaign_free(struct wr_campaign *c)
{
    free(c);
}

/* --- the ruleset --------------------------------------------------------------------- */

static const char *const all_seats[] = { "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                         "referee", NULL };
static const char *const option_names[] = { "players", "alliances", "referee", "max_turns",
                                            "max_rounds", NULL };

static const char *const *cr_game_seats(void *game)
{
    return ((struct wr_campaign *)game)->seats;
}

static void *cr_create(const json_t *scenario, const json_t *options, const char *game_id,
                       const uint8_t seed[32], struct wr_refusal *why)
{
    if (scenario == NULL) {
        wr_refuse(why, WR_R_BAD_SCENARIO, "a campaign needs a scenario: its map");
        return NULL;
    }
    struct wr_campaign_map *m = malloc(sizeof *m);
    if (m == NULL) {
        wr_refuse(why, WR_R_BAD_SCENARIO, "out of memory");
        return NULL;
    }
    struct wr_campaign *c = NULL;
    if (wr_campaign_map_load(m, scenario, why) == 0)
        c = wr_campaign_new(m, options, game_id, seed, why);
    free(m);
    return c;
}

static void cr_destroy(void *game)
{
    wr_campaign_free(game);
}

static enum wr_reason cr_apply(void *game, const char *seat, const json_t *cmd, json_t **events,
                               struct wr_refusal *why)
{
    return wr_campaign_apply(game, seat, cmd, events, why);
}

static json_t *cr_project(void *game, const char *seat)
{
    return wr_campaign_project(game, seat);
}

static json_t *cr_project_events(void *game, const char *seat, const json_t *events)
{
    return wr_campaign_project_events(game, seat, events);
}

static const char *cr_awaited(void *game)
{
    return wr_campaign_awaited(game);
}

static int cr_awaiting(void *game, struct wr_decision *out, int max)
{
    struct waiting w;
    waiting(game, &w);
    int n = 0;
    for (; n < w.n && n < max; n++)
        out[n] = (struct wr_decision){ w.seat[n], w.what[n] };
    return n;
}

static const char *cr_result(void *game)
{
    const struct wr_campaign *c = game;
    return c->winner[0] ? c->winner : NULL;
}

const struct wr_ruleset wr_ruleset_campaign = {
    .name = "campaign",
    .seats = all_seats,
    .hidden_info = 1,
    .game_seats = cr_game_seats,
    .options = option_names,
    .create = cr_create,
    .destroy = cr_destroy,
    .apply = cr_apply,
    .project = cr_project,
    .project_events = cr_project_events,
    .awaited = cr_awaited,
    .awaiting = cr_awaiting,
    .result = cr_result,
};
