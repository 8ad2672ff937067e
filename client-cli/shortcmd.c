/*
 * shortcmd.c - short forms of rules commands (shortcmd.h).
 */
#include "shortcmd.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 160
#define LINE_MAX_LEN 4096

const char *const wrc_shortcmd_words[] = {
    "move", "end", "endsetup", "place", "declare", "attack", "resolve", "retreat",
    "advance", "noadvance", "exchange", "defect", "mark", NULL,
};

struct words {
    char buf[LINE_MAX_LEN];
    char *w[MAX_WORDS];
    int n;
};

static int split(const char *text, struct words *ws, char *err, size_t errlen)
{
    if (strlen(text) >= sizeof ws->buf) {
        snprintf(err, errlen, "the command is longer than %d characters", LINE_MAX_LEN - 1);
        return -1;
    }
    strcpy(ws->buf, text);
    ws->n = 0;
    char *save = NULL;
    for (char *t = strtok_r(ws->buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (ws->n == MAX_WORDS) {
            snprintf(err, errlen, "the command has more than %d words", MAX_WORDS);
            return -1;
        }
        ws->w[ws->n++] = t;
    }
    return 0;
}

/* A square name in capitals, or "off". */
static json_t *square(const char *s, int allow_off)
{
    char up[16];
    size_t n = strlen(s);
    if (allow_off && strcmp(s, "off") == 0)
        return json_string("off");
    if (n == 0 || n >= sizeof up)
        return json_string(s);      /* the rules will name it as not a square */
    for (size_t i = 0; i <= n; i++)
        up[i] = (char)toupper((unsigned char)s[i]);
    return json_string(up);
}

/* Unit ids separated by commas into a new array. */
static json_t *unit_list(const char *s)
{
    json_t *a = json_array();
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n > 0)
            json_array_append_new(a, json_stringn(p, n));
        p += n;
        if (*p == ',')
            p++;
    }
    return a;
}

static int want(const struct words *ws, int lo, int hi, const char *usage, char *err,
                size_t errlen)
{
    if (ws->n - 1 < lo || (hi >= 0 && ws->n - 1 > hi)) {
        snprintf(err, errlen, "usage: %s", usage);
        return -1;
    }
    return 0;
}

/* "A,B:C,D" pairs (declare) or "A B vs C ; D vs E" (attack) into battles. */
static json_t *battles(const struct words *ws, int attack_form, char *err, size_t errlen)
{
    json_t *list = json_array();
    if (!attack_form) {
        for (int i = 1; i < ws->n; i++) {
            const char *colon = strchr(ws->w[i], ':');
            if (colon == NULL || colon == ws->w[i] || colon[1] == '\0') {
                snprintf(err, errlen, "'%s' is not ATTACKERS:DEFENDERS (e.g. "
                         "fr-jerome,fr-foy:aa-picton)", ws->w[i]);
                json_decref(list);
                return NULL;
            }
            char left[LINE_MAX_LEN];
            snprintf(left, sizeof left, "%.*s", (int)(colon - ws->w[i]), ws->w[i]);
            json_array_append_new(list, json_pack("{s:o, s:o}", "attackers", unit_list(left),
                                                  "defenders", unit_list(colon + 1)));
        }
        return list;
    }
    json_t *att = json_array(), *def = json_array();
    int side = 0;       /* 0 attackers, 1 defenders */
    for (int i = 1; i <= ws->n; i++) {
        const char *w = i < ws->n ? ws->w[i] : ";";
        if (strcmp(w, "vs") == 0) {
            if (side == 1 || json_array_size(att) == 0)
                goto bad;
            side = 1;
        } else if (strcmp(w, ";") == 0 || strcmp(w, "and") == 0) {
            if (json_array_size(att) == 0 && json_array_size(def) == 0 && i == ws->n)
                break;
            if (side == 0 || json_array_size(def) == 0)
                goto bad;
            json_array_append_new(list, json_pack("{s:o, s:o}", "attackers", att, "defenders",
                                                  def));
            att = json_array();
            def = json_array();
            side = 0;
        } else {
            json_t *u = unit_list(w);
            json_array_extend(side ? def : att, u);
            json_decref(u);
        }
    }
    json_decref(att);
    json_decref(def);
    return list;
bad:
    snprintf(err, errlen, "usage: attack ATTACKER... vs DEFENDER... [; ATTACKER... vs "
             "DEFENDER...]");
    json_decref(att);
    json_decref(def);
    json_decref(list);
    return NULL;
}

/* Split "a;b" words so that "vs" battles may be separated by ";" glued to a
 * unit ("aa-picton;"). */
static void unglue_semicolons(const char *text, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; text[i] && j + 4 < n; i++) {
        if (text[i] == ';') {
            out[j++] = ' ';
            out[j++] = ';';
            out[j++] = ' ';
        } else {
            out[j++] = text[i];
        }
    }
    out[j] = '\0';
}

json_t *wrc_shortcmd_parse(const char *text, char *err, size_t errlen)
{
    struct words *ws = malloc(sizeof *ws);
    json_t *c = NULL;
    if (ws == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '{') {
        json_error_t je;
        c = json_loads(p, JSON_REJECT_DUPLICATES, &je);
        if (c == NULL || !json_is_object(c)) {
            snprintf(err, errlen, "not a JSON object: %s", c ? "another JSON value" : je.text);
            json_decref(c);
            c = NULL;
        }
        free(ws);
        return c;
    }
    char spaced[LINE_MAX_LEN];
    unglue_semicolons(p, spaced, sizeof spaced);
    if (split(spaced, ws, err, errlen) != 0)
        goto out;
    if (ws->n == 0) {
        snprintf(err, errlen, "no command given");
        goto out;
    }
    const char *verb = ws->w[0];
    char **w = ws->w;
    if (strcmp(verb, "move") == 0) {
        if (want(ws, 2, -1, "move UNIT[,UNIT...] SQUARE... (e.g. move fr-jerome J-40 I-40)",
                 err, errlen))
            goto out;
        json_t *units = unit_list(w[1]), *path = json_array();
        for (int i = 2; i < ws->n; i++)
            json_array_append_new(path, square(w[i], i == ws->n - 1));
        if (json_array_size(units) == 1)
            c = json_pack("{s:s, s:O, s:o}", "type", "move", "unit",
                          json_array_get(units, 0), "path", path);
        else
            c = json_pack("{s:s, s:O, s:o}", "type", "move", "units", units, "path", path);
        json_decref(units);
    } else if (strcmp(verb, "end") == 0 || strcmp(verb, "end_phase") == 0) {
        if (want(ws, 0, 0, "end", err, errlen) == 0)
            c = json_pack("{s:s}", "type", "end_phase");
    } else if (strcmp(verb, "endsetup") == 0 || strcmp(verb, "end_setup") == 0) {
        if (want(ws, 0, 0, "endsetup", err, errlen) == 0)
            c = json_pack("{s:s}", "type", "end_setup");
    } else if (strcmp(verb, "place") == 0) {
        if (want(ws, 2, 2, "place UNIT SQUARE", err, errlen) == 0)
            c = json_pack("{s:s, s:s, s:o}", "type", "place", "unit", w[1], "at",
                          square(w[2], 0));
    } else if (strcmp(verb, "declare") == 0 || strcmp(verb, "attack") == 0) {
        json_t *b = battles(ws, verb[0] == 'a', err, errlen);
        if (b)
            c = json_pack("{s:s, s:o}", "type", "declare", "battles", b);
    } else if (strcmp(verb, "resolve") == 0) {
        if (want(ws, 0, 1, "resolve [BATTLE NUMBER]", err, errlen))
            goto out;
        if (ws->n == 1) {
            c = json_pack("{s:s}", "type", "resolve");
        } else {
            char *end;
            errno = 0;
            long n = strtol(w[1], &end, 10);
            if (errno || *end || n < 0 || n > 1000)
                snprintf(err, errlen, "'%s' is not a battle number (0, 1, ...)", w[1]);
            else
                c = json_pack("{s:s, s:i}", "type", "resolve", "battle", (int)n);
        }
    } else if (strcmp(verb, "retreat") == 0) {
        if (want(ws, 3, 3, "retreat UNIT SQUARE SQUARE", err, errlen) == 0)
            c = json_pack("{s:s, s:s, s:[o, o]}", "type", "retreat", "unit", w[1], "path",
                          square(w[2], 0), square(w[3], 1));
    } else if (strcmp(verb, "advance") == 0) {
        if (want(ws, 2, 2, "advance UNIT SQUARE", err, errlen) == 0)
            c = json_pack("{s:s, s:s, s:o}", "type", "advance", "unit", w[1], "to",
                          square(w[2], 0));
    } else if (strcmp(verb, "noadvance") == 0 || strcmp(verb, "no_advance") == 0) {
        if (want(ws, 0, 0, "noadvance", err, errlen) == 0)
            c = json_pack("{s:s}", "type", "no_advance");
    } else if (strcmp(verb, "exchange") == 0 || strcmp(verb, "exchange_losses") == 0 ||
               strcmp(verb, "defect") == 0) {
        const char *type = verb[0] == 'd' ? "defect" : "exchange_losses";
        if (want(ws, 1, -1, verb[0] == 'd' ? "defect UNIT..." : "exchange UNIT...", err,
                 errlen) == 0) {
            json_t *units = json_array();
            for (int i = 1; i < ws->n; i++) {
                json_t *u = unit_list(w[i]);
                json_array_extend(units, u);
                json_decref(u);
            }
            c = json_pack("{s:s, s:o}", "type", type, "units", units);
        }
    } else if (strcmp(verb, "mark") == 0) {
        char *end;
        long n = ws->n == 2 ? strtol(w[1], &end, 10) : -1;
        if (ws->n != 2 || *end || end == w[1] || n < 0 || n > 1000)
            snprintf(err, errlen, "usage: mark CELL (0 to 8, row by row from the top left)");
        else
            c = json_pack("{s:s, s:i}", "type", "mark", "cell", (int)n);
    } else {
        snprintf(err, errlen, "unknown command '%s' (commands: move, end, endsetup, place, "
                 "declare, attack, resolve, retreat, advance, noadvance, exchange, defect, "
                 "mark, or a JSON object)", verb);
    }
out:
    free(ws);
    return c;
}
