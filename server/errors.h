/*
 * errors.h - the server's own error codes, one table (docs/protocol.md,
 * "Error codes", lists the same; test_error_codes checks that it does).
 *
 * A refused rules command carries its ruleset's code instead (the refusal
 * names it); a refused webhook the notifier's (notify.h). Each entry here
 * is X(name, wire code, the sentence sent when no better one is given).
 */
#ifndef WRD_ERRORS_H
#define WRD_ERRORS_H

#define WRD_ERROR_MAP(X)                                                                    \
    X(BAD_JSON, "bad_json", "a message is a JSON object")                                   \
    X(BAD_MESSAGE, "bad_message", "the message is not one this server reads")               \
    X(UNSUPPORTED_PROTOCOL, "unsupported_protocol", "this server speaks protocol 1")        \
    X(HELLO_FIRST, "hello_first", "send hello first")                                       \
    X(NO_SUCH_GAME, "no_such_game", "there is no such game")                                \
    X(NO_SUCH_RULESET, "no_such_ruleset", "the server has no such ruleset")                 \
    X(NO_SUCH_SCENARIO, "no_such_scenario", "the server has no such scenario")              \
    X(BAD_SEAT, "bad_seat", "no such seat in this game")                                    \
    X(BAD_OPTIONS, "bad_options", "the game's options are not valid")                       \
    X(BAD_INVITE, "bad_invite", "unknown or already used invite")                           \
    X(SEAT_TAKEN, "seat_taken", "that seat is taken")                                       \
    X(NOT_OPEN, "not_open", "this game's seats are by invitation")                          \
    X(BAD_TOKEN, "bad_token", "that token opens no seat of this game")                      \
    X(NO_SPECTATORS, "no_spectators", "this game does not allow spectators")                \
    X(NOT_JOINED, "not_joined", "join the game with your seat token first")                 \
    X(SPECTATOR, "spectator", "spectators cannot act")                                      \
    X(STALE_SEQ, "stale_seq", "that seq was answered long ago")                             \
    X(RATE_LIMITED, "rate_limited", "too many commands per second")                         \
    X(NOT_STARTED, "not_started", "the game starts when every seat is claimed")             \
    X(GAME_OVER, "game_over", "the game has finished")                                      \
    X(NOT_FINISHED, "not_finished",                                                         \
      "this game has hidden information: its record is available when it is over")          \
    X(TOO_MANY_GAMES, "too_many_games", "the server holds its maximum of games in play")     \
    X(TOO_MANY_VIEWS, "too_many_views",                                                     \
      "your address holds its maximum of views of games: close a page or leave a game first") \
    X(TOO_MANY_OPEN_GAMES, "too_many_open_games",                                           \
      "your address has created the most games waiting for players it may")                 \
    X(NO_CHILDREN, "no_children", "that game's ruleset plays no part of it as a game of its own") \
    X(CHILD_EXISTS, "child_exists", "that part of the parent game is already being played")  \
    X(MAIL_OFF, "mail_off", "this server sends no mail (it runs without --smtp)")            \
    X(BAD_ADDRESS, "bad_address", "that is not a mail address this server sends to")       \
    X(BAD_CODE, "bad_code", "that is not the code of this seat's confirmation mail")         \
    X(TOO_MANY_MAILS, "too_many_mails",                                                     \
      "your address has asked for the most confirmation mails it may this hour")            \
    X(OWNED_ELSEWHERE, "owned_elsewhere",                                                  \
      "another server process holds this game: try again in a moment")                       \
    X(INTERNAL, "internal", "the server failed; nothing was applied")

enum wrd_error {
#define WRD_ERROR_ENUM(name, code, text) WRD_E_##name,
    WRD_ERROR_MAP(WRD_ERROR_ENUM)
#undef WRD_ERROR_ENUM
    WRD_E_COUNT
};

/* The wire code of e ("no_such_game"), and its default sentence. */
const char *wrd_error_code(enum wrd_error e);
const char *wrd_error_text(enum wrd_error e);

#endif
