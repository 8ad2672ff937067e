/*
 * campaign_tables.c - the campaign's tables as data: the tactics table of
 * the rulebook, the wire names of tactics, strategies and tactics results,
 * and the commitment of a tactic (SHA-256 of the choice and its salt).
 */
#include "campaign_internal.h"

#include <stddef.h>
#include <string.h>

#include <openssl/evp.h>

const char *const cp_tactic_names[WR_CT_COUNT] = { "march", "counter_march", "attack",
                                                   "defend", "regroup" };

const char *const cp_strategy_names[] = { "none", "flank_march", "hidden_ambush", "scouts",
                                          "rapid_deployment", "good_planning",
                                          "brilliant_generalship" };

const char *const cp_kind_names[] = { "no_battle", "reinforce", "open", "meeting",
                                      "skirmish", "ambush", "surprise", "break_through",
                                      "attacks_defences", "flank_march", "last_stand" };

const char *const cp_phase_names[] = { "start", "draft", "attack", "counter", "strategy",
                                       "tactics", "battle", "over" };

/* The tactics table of the rulebook, row = blue's (the attacker's) choice,
 * column = red's (the defender's), both in the order March, Counter-march,
 * Attack, Defend, Regroup. Each cell is its two sentences: why, and what. */
const struct wr_campaign_tactics_cell cp_tactics_table[WR_CT_COUNT][WR_CT_COUNT] = {
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
    return &cp_tactics_table[blue][red];
}

enum wr_campaign_strategy wr_campaign_strategy_of_roll(int face)
{
    return face >= 1 && face <= 6 ? (enum wr_campaign_strategy)face : WR_CS_NONE;
}

const char *wr_campaign_tactic_name(enum wr_campaign_tactic t)
{
    return (int)t >= 0 && t < WR_CT_COUNT ? cp_tactic_names[t] : NULL;
}

int wr_campaign_tactic_parse(const char *name)
{
    for (int i = 0; name && i < WR_CT_COUNT; i++)
        if (strcmp(cp_tactic_names[i], name) == 0)
            return i;
    return -1;
}

const char *wr_campaign_strategy_name(enum wr_campaign_strategy s)
{
    return (int)s >= 0 && s <= WR_CS_BRILLIANT_GENERALSHIP ? cp_strategy_names[s] : NULL;
}

int wr_campaign_strategy_parse(const char *name)
{
    for (int i = WR_CS_FLANK_MARCH; name && i <= WR_CS_BRILLIANT_GENERALSHIP; i++)
        if (strcmp(cp_strategy_names[i], name) == 0)
            return i;
    return -1;
}

const char *wr_campaign_kind_name(enum wr_campaign_tactics_kind k)
{
    return (int)k >= 0 && k <= WR_CK_LAST_STAND ? cp_kind_names[k] : NULL;
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
