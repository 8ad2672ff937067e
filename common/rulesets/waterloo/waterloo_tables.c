/*
 * waterloo_tables.c - names of sides, unit types, phases, CRT columns and results.
 */
#include "waterloo_command.h"
#include "waterloo_game.h"
#include "waterloo_scenario.h"

#include <string.h>

static const char *const crt_labels[WL_CRT_COLS] = {
    "1-6", "1-5", "1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1",
};
static const char *const result_codes[] = { "AE", "DE", "AB2", "DB2", "EX" };
static const char *const side_names[] = { "french", "allied" };
static const char *const utype_names[] = { "infantry", "cavalry", "artillery",
                                           "horse_artillery", "hq" };
static const char *const phase_names[WL_NPHASES] = {
    "setup_french", "setup_allied", "french_move", "french_combat", "defection",
    "allied_move", "allied_combat", "over",
};

#define LOOKUP(table, i) \
    (((i) >= 0 && (size_t)(i) < sizeof(table) / sizeof(table)[0]) ? (table)[i] : "?")

int wl_crt_column(const char *label)
{
    for (int i = 0; i < WL_CRT_COLS; i++)
        if (strcmp(crt_labels[i], label) == 0)
            return i;
    return -1;
}

const char *wl_crt_label(int column) { return LOOKUP(crt_labels, column); }
const char *wl_result_code(int r) { return LOOKUP(result_codes, r); }
const char *wl_side_name(int side) { return LOOKUP(side_names, side); }
const char *wl_utype_name(int type) { return LOOKUP(utype_names, type); }
const char *wl_phase_name(int phase) { return LOOKUP(phase_names, phase); }

int wl_scenario_find_unit(const struct wl_scenario *sc, const char *id)
{
    for (int i = 0; i < sc->nunits; i++)
        if (strcmp(sc->units[i].id, id) == 0)
            return i;
    return -1;
}

/* --- commands and awaited decisions (waterloo_command.h) ------------------ */

static const char *const cmd_names[WL_NCMDS] = {
    "place", "end_setup", "move", "end_phase", "declare", "resolve", "retreat",
    "exchange_losses", "advance", "no_advance", "defect", "undo",
};

static const char *const await_names[] = {
    "nothing", "setup", "move", "declare", "resolve", "retreat", "exchange_losses",
    "advance", "defect", "combat",
};

const char *wl_cmd_name(int type)
{
    return (type >= 0 && type < WL_NCMDS) ? cmd_names[type] : "?";
}

const char *wl_await_name(int what)
{
    return (what >= 0 && (size_t)what < sizeof await_names / sizeof await_names[0])
               ? await_names[what] : "?";
}

/* What a player reads: each command as an act, each decision as what the
 * side awaited is to do ("the game waits for the French to ..."). A
 * command type without words here is named by its wire name. */
static const char *const cmd_words[WL_NCMDS] = {
    "placing a unit", "ending the set-up", "a move", "ending the phase",
    "declaring battles", "resolving a battle", "a retreat", "an exchange", "an advance",
    "declining an advance", "a defection", "taking back a move",
};

static const char *const await_words[] = {
    "do nothing more (the game is over)", "set up their units", "move",
    "declare their battles", "resolve their battles",
    "retreat the units that lost the battle", "choose their losses in the exchange",
    "advance after the battle or decline", "remove defecting P-A-A units",
    "fight their combat phase",
};

const char *wl_cmd_words(int type)
{
    return (type >= 0 && type < WL_NCMDS && cmd_words[type]) ? cmd_words[type]
                                                             : wl_cmd_name(type);
}

const char *wl_await_words(int what)
{
    return (what >= 0 && (size_t)what < sizeof await_words / sizeof await_words[0])
               ? await_words[what] : wl_await_name(what);
}

const char *wl_side_words(int side)
{
    return side == WL_FRENCH ? "the French" : side == WL_ALLIED ? "the Allies" : "nobody";
}

int wl_cmd_type(const char *name)
{
    for (int i = 0; name && i < WL_NCMDS; i++)
        if (strcmp(name, cmd_names[i]) == 0)
            return i;
    return -1;
}

int wl_await_from_name(const char *name)
{
    for (int i = 0; name && (size_t)i < sizeof await_names / sizeof await_names[0]; i++)
        if (strcmp(name, await_names[i]) == 0)
            return i;
    return -1;
}
