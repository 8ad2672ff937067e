/*
 * log.h - structured log lines (logfmt) on stderr.
 *
 *   ts=2026-11-30T04:50:00.123Z level=info msg="listening" addr=127.0.0.1:8080
 *
 * One process-wide level, set once at start-up from --log-level.
 */
#ifndef WRD_LOG_H
#define WRD_LOG_H

enum wrd_log_level { WRD_LOG_DEBUG, WRD_LOG_INFO, WRD_LOG_WARN, WRD_LOG_ERROR };

void wrd_log_set_level(enum wrd_log_level level);

/* Parse "debug", "info", "warn", "error"; returns -1 when unknown. */
int wrd_log_parse_level(const char *name);

/* msg is quoted; fmt adds space-separated key=value pairs (may be NULL). */
void wrd_log(enum wrd_log_level level, const char *msg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define wrd_debug(msg, ...) wrd_log(WRD_LOG_DEBUG, msg, __VA_ARGS__)
#define wrd_info(msg, ...) wrd_log(WRD_LOG_INFO, msg, __VA_ARGS__)
#define wrd_warn(msg, ...) wrd_log(WRD_LOG_WARN, msg, __VA_ARGS__)
#define wrd_error(msg, ...) wrd_log(WRD_LOG_ERROR, msg, __VA_ARGS__)

#endif
