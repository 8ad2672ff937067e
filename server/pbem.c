/*
 * pbem.c - play by email: registrations, tags, mail texts (pbem.h).
 */
#include "pbem.h"

#include <ctype.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "ruleset.h"

static const char *const state_names[] = { "none", "pending", "confirmed" };

const char *wrd_pbem_state_name(int state)
{
    return state >= WRD_PBEM_NONE && state <= WRD_PBEM_CONFIRMED ? state_names[state] : "none";
}

static void hex(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int is_hex_lower(const char *s, size_t len)
{
    if (strlen(s) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
            return 0;
    return 1;
}

/* The confirmation code, upper-cased and without the blanks around it,
 * hashed. */
static int code_hash(const char *code, char out[65])
{
    char c[WRD_PBEM_CODE_LEN + 1];
    while (*code == ' ' || *code == '\t')
        code++;
    size_t n = 0;
    for (; *code && *code != ' ' && *code != '\t' && *code != '\r' && *code != '\n'; code++) {
        if (n == WRD_PBEM_CODE_LEN)
            return -1;
        c[n++] = (char)toupper((unsigned char)*code);
    }
    c[n] = '\0';
    uint8_t d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)c, n, d);
    hex(d, sizeof d, out);
    return 0;
}

int wrd_pbem_reg_new(struct wrd_pbem_reg *r, const char *address,
                     char code[WRD_PBEM_CODE_LEN + 1])
{
    /* no 0/O, 1/I/L: a code read off a phone is typed right */
    static const char alphabet[] = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    uint8_t b[32 + WRD_PBEM_CODE_LEN];
    memset(r, 0, sizeof *r);
    if (uv_random(NULL, NULL, b, sizeof b, 0, NULL) != 0)
        return -1;
    hex(b, 32, r->secret);
    for (int i = 0; i < WRD_PBEM_CODE_LEN; i++)
        code[i] = alphabet[b[32 + i] % (sizeof alphabet - 1)];
    code[WRD_PBEM_CODE_LEN] = '\0';
    code_hash(code, r->code_hash);
    snprintf(r->address, sizeof r->address, "%s", address);
    r->state = WRD_PBEM_PENDING;
    OPENSSL_cleanse(b, sizeof b);
    return 0;
}

int wrd_pbem_reg_confirm(struct wrd_pbem_reg *r, const char *code)
{
    char h[65];
    if (r->state != WRD_PBEM_PENDING || code == NULL || code_hash(code, h) != 0 ||
        CRYPTO_memcmp(h, r->code_hash, 64) != 0)
        return -1;
    r->state = WRD_PBEM_CONFIRMED;
    r->code_hash[0] = '\0';
    return 0;
}

char *wrd_pbem_reg_text(const struct wrd_pbem_reg *r)
{
    if (r->state == WRD_PBEM_NONE)
        return NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "state", wrd_pbem_state_name(r->state),
                          "address", r->address, "secret", r->secret, "code", r->code_hash);
    if (o && r->digest)
        json_object_set_new(o, "digest", json_true());
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return text;
}

int wrd_pbem_reg_read(struct wrd_pbem_reg *r, const char *text)
{
    memset(r, 0, sizeof *r);
    if (text == NULL)
        return 0;
    json_t *o = json_loads(text, 0, NULL);
    const char *state = json_string_value(json_object_get(o, "state"));
    const char *address = json_string_value(json_object_get(o, "address"));
    const char *secret = json_string_value(json_object_get(o, "secret"));
    const char *code = json_string_value(json_object_get(o, "code"));
    json_t *digest = json_object_get(o, "digest");
    int st = WRD_PBEM_NONE;
    for (int i = WRD_PBEM_PENDING; state && i <= WRD_PBEM_CONFIRMED; i++)
        if (strcmp(state, state_names[i]) == 0)
            st = i;
    int ok = st != WRD_PBEM_NONE && address && wrd_mail_check_address(address, NULL) == 0 &&
             secret && is_hex_lower(secret, 64) && code &&
             (st == WRD_PBEM_CONFIRMED ? code[0] == '\0' : is_hex_lower(code, 64)) &&
             (digest == NULL || json_is_boolean(digest));
    if (ok) {
        r->state = st;
        snprintf(r->address, sizeof r->address, "%s", address);
        snprintf(r->secret, sizeof r->secret, "%s", secret);
        snprintf(r->code_hash, sizeof r->code_hash, "%s", code);
        r->digest = json_is_true(digest);
    }
    json_decref(o);
    return ok ? 0 : -1;
}

/* --- tags ------------------------------------------------------------------------- */

static void mac_of(const struct wrd_pbem_reg *r, const char *game, int seat, const char *what,
                   char out[WRD_PBEM_MAC_LEN + 1])
{
    char msg[80];
    int n = snprintf(msg, sizeof msg, "%s.%d.%s", game, seat, what);
    uint8_t key[32], d[EVP_MAX_MD_SIZE];
    unsigned dlen = 0;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(r->secret + 2 * i, "%2x", &v);
        key[i] = (uint8_t)v;
    }
    HMAC(EVP_sha256(), key, sizeof key, (const unsigned char *)msg, (size_t)n, d, &dlen);
    hex(d, WRD_PBEM_MAC_LEN / 2, out);
    OPENSSL_cleanse(key, sizeof key);
}

void wrd_pbem_tag(const struct wrd_pbem_reg *r, const char *game, int seat, const char *what,
                  char out[WRD_PBEM_TAG_MAX])
{
    char mac[WRD_PBEM_MAC_LEN + 1];
    mac_of(r, game, seat, what, mac);
    snprintf(out, WRD_PBEM_TAG_MAX, "%s.%d.%s.%s", game, seat, what, mac);
}

/* Copy the run of s up to stop (at most n - 1 bytes, every byte passing ok)
 * into out; the length, or -1. */
static int field(const char *s, char stop, int (*ok)(int), char *out, size_t n)
{
    size_t k = 0;
    while (s[k] && s[k] != stop) {
        if (k + 1 >= n || !ok((unsigned char)s[k]))
            return -1;
        out[k] = (char)tolower((unsigned char)s[k]);
        k++;
    }
    if (s[k] != stop || k == 0)
        return -1;
    out[k] = '\0';
    return (int)k;
}

static int is_id_char(int c)
{
    return isalnum(c) || c == '-';
}

static int is_word_char(int c)
{
    return isalnum(c);
}

int wrd_pbem_tag_parse(const char *address, struct wrd_pbem_tag *t)
{
    memset(t, 0, sizeof *t);
    if (address == NULL)
        return -1;
    while (*address == ' ' || *address == '<')
        address++;
    /* the last '+' before the '@': LOCAL may hold one of its own */
    const char *at = strchr(address, '@');
    const char *plus = at;
    while (plus && plus > address && plus[-1] != '+')
        plus--;
    if (at == NULL || plus == address)
        return -1;
    plus--;
    const char *s = plus + 1;
    char seat[8];
    int n;
    if ((n = field(s, '.', is_id_char, t->game, sizeof t->game)) < 0)
        return -1;
    s += n + 1;
    if ((n = field(s, '.', is_word_char, seat, sizeof seat)) < 0)
        return -1;
    s += n + 1;
    if ((n = field(s, '.', is_word_char, t->what, sizeof t->what)) < 0)
        return -1;
    s += n + 1;
    if ((n = field(s, '@', isxdigit, t->mac, sizeof t->mac)) != WRD_PBEM_MAC_LEN)
        return -1;
    for (const char *c = seat; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    if (strlen(seat) > 3)
        return -1;
    t->seat = atoi(seat);
    return 0;
}

int wrd_pbem_tag_verify(const struct wrd_pbem_reg *r, const struct wrd_pbem_tag *t)
{
    if (r->state == WRD_PBEM_NONE)
        return 0;
    char mac[WRD_PBEM_MAC_LEN + 1];
    mac_of(r, t->game, t->seat, t->what, mac);
    return CRYPTO_memcmp(mac, t->mac, WRD_PBEM_MAC_LEN) == 0;
}

int wrd_pbem_reply_address(const char *reply, const char *tag, char *out, size_t n)
{
    const char *at = reply ? strchr(reply, '@') : NULL;
    if (at == NULL)
        return -1;
    int len = snprintf(out, n, "%.*s+%s%s", (int)(at - reply), reply, tag, at);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* --- texts ------------------------------------------------------------------------- */

struct wr_view *wrd_pbem_view(const struct wrd_pbem_game *g, struct wr_refusal *why)
{
    json_t *scen = NULL;
    if (g->scenario_text) {
        json_error_t jerr;
        scen = json_loads(g->scenario_text, 0, &jerr);
        if (scen == NULL) {
            wr_refuse(why, WR_R_BAD_SCENARIO, "the game's scenario: %s", jerr.text);
            return NULL;
        }
    }
    const struct wr_present *pr = g->rs->present;
    struct wr_view *v = pr->open(g->rs, scen, json_is_object(g->options) ? g->options : NULL,
                                 g->seat, NULL, why);
    json_decref(scen);
    if (v && g->state && pr->update(v, g->state, why) != 0) {
        pr->close(v);
        return NULL;
    }
    return v;
}

void wrd_pbem_game_text(const struct wr_view *v, const struct wrd_pbem_game *g, int awaited,
                        int replies, struct wr_strbuf *out)
{
    const struct wr_present *pr = v->pr;
    wr_strbuf_printf(out, "Game %s (%s%s%s), version %lld. You play %s.\n\n", g->id,
                     g->rs->name, g->scenario_name && g->scenario_name[0] ? ", " : "",
                     g->scenario_name ? g->scenario_name : "", (long long)g->version, g->seat);
    struct wr_draw_opts o = { .cols = 76, .rows = 40 };
    if (pr->draw_text(v, &o, out) == 0)
        wr_strbuf_puts(out, "\n");
    pr->describe(v, out);
    if (awaited && replies) {
        /* The decision above gives examples that fit the game now; each
         * order's own example is generic, so only its synopsis is listed. */
        wr_strbuf_puts(out, "\nReply with your orders, one per line, above the quoted text, "
                            "as the decision above says. Orders:\n");
        for (const struct wr_order *ord = pr->orders; ord && ord->name; ord++)
            wr_strbuf_printf(out, "  %s%s\n", ord->synopsis,
                             ord->query ? "  (a question: answered in the reply, nothing is "
                                          "played)" : "");
    } else if (awaited) {
        wr_strbuf_puts(out, "\nThis server does not read replies: play with warroom or in "
                            "your browser.\n");
    }
    if (g->url && g->url[0]) {
        size_t n = strlen(g->url);
        wr_strbuf_printf(out, "\nThe game in your browser: %s%sgame/%s\n", g->url,
                         g->url[n - 1] == '/' ? "" : "/", g->id);
    }
}

int wrd_pbem_post(const struct wrd_pbem_post *p, const struct wrd_pbem_reg *r, const char *game,
                  int seat, const char *seat_name, const char *what, const char *subject,
                  const char *text, const struct wr_strbuf *svg)
{
    char tag[WRD_PBEM_TAG_MAX], reply[WRD_MAIL_MAX_ADDRESS + WRD_PBEM_TAG_MAX + 2];
    const char *reply_to = NULL;
    if (p->reply && p->reply[0]) {
        wrd_pbem_tag(r, game, seat, what, tag);
        if (wrd_pbem_reply_address(p->reply, tag, reply, sizeof reply) == 0)
            reply_to = reply;
    }
    struct wrd_mail_part part = { "image/svg+xml", "board.svg", svg ? svg->s : NULL,
                                  svg ? svg->len : 0 };
    struct wrd_mail_msg m = {
        .from = p->from,
        .to = r->address,
        .reply_to = reply_to,
        .subject = subject,
        .text = text,
        .parts = svg && svg->len > 0 ? &part : NULL,
        .nparts = svg && svg->len > 0 ? 1 : 0,
        .date_ms = p->now_ms,
    };
    size_t len = 0;
    int err = 0;
    char *msg = wrd_mail_format(&m, &len, &err);
    if (msg == NULL)
        return err ? err : WRD_MAIL_ENOMEM;
    char key[64];
    snprintf(key, sizeof key, "%s/%s", game, seat_name);
    int rc = wrd_mail_send(p->mailer, r->address, key, msg, len);
    free(msg);
    return rc;
}
