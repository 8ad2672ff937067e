#!/usr/bin/python3
"""smtp_sink.py - a real SMTP server on loopback for the mail tests.

    /usr/bin/python3 smtp_sink.py MAILDIR [--fail-first N] [--auth USER:PASSWORD]
                                          [--refuse-rcpt ADDR]...

Runs Debian's aiosmtpd (python3-aiosmtpd, a complete RFC 5321 server, under
Debian's /usr/bin/python3, which is where that package installs it) on
127.0.0.1 with a port the kernel picks, prints that port and a newline on
standard output once it listens, and keeps every message it accepts as one
file, MAILDIR/new/NNNNNN.eml (numbered from 000001 in the order accepted),
written to MAILDIR/tmp first and renamed, so a reader never sees half a
message. Each file is the message as received, after two header lines the
sink adds for the tests:

    X-Sink-Mail-From: <envelope sender>
    X-Sink-Rcpt-To: <envelope recipient>[, <recipient>...]

--fail-first N answers the first N messages' DATA with a temporary failure
(451), so a sender's retry can be tested. --auth USER:PASSWORD offers AUTH
PLAIN and LOGIN (without TLS: loopback only) and refuses a message from a
client that did not authenticate with those credentials (530).
--refuse-rcpt ADDR (may be repeated) answers RCPT TO:<ADDR> with a permanent
failure (550), as a server does for a mailbox it does not have, so a
sender's giving up can be tested.

It runs until SIGTERM or SIGINT.
"""
import asyncio
import os
import signal
import sys

from aiosmtpd.smtp import SMTP, AuthResult


class Sink:
    def __init__(self, maildir, fail_first, refused=()):
        self.maildir = maildir
        self.refused = set(a.lower() for a in refused)
        self.fail_left = fail_first
        self.count = 0
        for sub in ("tmp", "new"):
            os.makedirs(os.path.join(maildir, sub), exist_ok=True)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refused:
            return "550 5.1.1 The sink has no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.fail_left > 0:
            self.fail_left -= 1
            return "451 4.3.0 The sink refuses this one; try again later"
        self.count += 1
        name = "%06d.eml" % self.count
        head = "X-Sink-Mail-From: %s\r\nX-Sink-Rcpt-To: %s\r\n" % (
            envelope.mail_from, ", ".join(envelope.rcpt_tos))
        data = envelope.original_content or envelope.content
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        tmp = os.path.join(self.maildir, "tmp", name)
        with open(tmp, "wb") as f:
            f.write(head.encode("ascii", "replace"))
            f.write(data)
        os.rename(tmp, os.path.join(self.maildir, "new", name))
        return "250 2.0.0 Kept as %s" % name


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    maildir = args[0]
    fail_first = 0
    auth = None
    refused = []
    rest = args[1:]
    while rest:
        opt = rest.pop(0)
        if opt == "--fail-first" and rest:
            fail_first = int(rest.pop(0))
        elif opt == "--auth" and rest and ":" in rest[0]:
            auth = rest.pop(0).split(":", 1)
        elif opt == "--refuse-rcpt" and rest:
            refused.append(rest.pop(0))
        else:
            print("smtp_sink.py: unknown or incomplete option %s" % opt, file=sys.stderr)
            return 2

    sink = Sink(maildir, fail_first, refused)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (auth is not None and auth_data.login.decode() == auth[0]
              and auth_data.password.decode() == auth[1])
        # handled=False: aiosmtpd answers a failure itself (535); with its
        # default (handled=True) it answers nothing and the client hangs.
        return AuthResult(success=ok, handled=False)

    def factory():
        if auth is None:
            return SMTP(sink, hostname="sink.test")
        return SMTP(sink, hostname="sink.test", auth_required=True, auth_require_tls=False,
                    authenticator=authenticator)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(loop.create_server(factory, "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]
    sys.stdout.write("%d\n" % port)
    sys.stdout.flush()

    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    loop.run_until_complete(stop)
    server.close()
    loop.run_until_complete(server.wait_closed())
    return 0


if __name__ == "__main__":
    sys.exit(main())
