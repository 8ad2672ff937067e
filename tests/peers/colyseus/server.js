// server.js - the Colyseus 0.16 side of `scripts/dev.sh bench --peers`: the
// same tictactoe that warroomd referees, written the way a Colyseus game is.
//
//   node server.js [--listen 127.0.0.1:0] [--patch-rate MS]
//
// One room a game: two seats (x for the first player to join, o for the
// second) and any number of spectators (join option {spectate: true}).
// A "mark" message {cell} is checked for seat, turn, game not over and an
// empty cell, else answered with an "error" message {code}; a legal one
// changes the room's state, which Colyseus sends to every client of the room
// as a patch each patchRate ms (5 ms here, against the default of 50). When a
// game is over a seat's "again" resets the board and the room is reused for
// the next game (round + 1). Nothing is stored: a move lives only in the
// room's memory, unlike warroomd, which commits every move to its store before
// anyone sees it.
//
// It prints "colyseus listening on ws://127.0.0.1:PORT/" once it listens (port
// 0 lets the system choose), and exits when told (SIGTERM, SIGINT) or when its
// standard input closes, so a driver that dies never leaves it behind.
"use strict";

const { Server, Room } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");
const { Schema, ArraySchema, defineTypes } = require("@colyseus/schema");

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

// The room's state: cells 0 empty, 1 x, 2 o; winner -1 while playing, 0 x,
// 1 o, 2 a draw; moves counts the marks of this round.
class Board extends Schema {
    constructor() {
        super();
        this.cells = new ArraySchema(0, 0, 0, 0, 0, 0, 0, 0, 0);
        this.turn = 0;
        this.moves = 0;
        this.winner = -1;
        this.round = 0;
    }
}
defineTypes(Board, { cells: ["uint8"], turn: "uint8", moves: "uint8", winner: "int8", round: "uint32" });

function won(cells, v) {
    return LINES.some(([a, b, c]) => cells[a] === v && cells[b] === v && cells[c] === v);
}

class TicTacToe extends Room {
    onCreate() {
        this.patchRate = patchRate;
        this.setState(new Board());
        this.seats = [null, null];              // sessionIds
        this.onMessage("mark", (client, msg) => this.mark(client, msg));
        this.onMessage("again", (client) => this.again(client));
    }

    onJoin(client, options) {
        if (options && options.spectate) {
            client.userData = { seat: -1 };
            return;
        }
        const seat = this.seats.indexOf(null);
        if (seat < 0)
            throw new Error("both seats are taken");
        this.seats[seat] = client.sessionId;
        client.userData = { seat };
    }

    onLeave(client) {
        const seat = client.userData ? client.userData.seat : -1;
        if (seat >= 0)
            this.seats[seat] = null;
    }

    refuse(client, code) {
        client.send("error", { code });
    }

    mark(client, msg) {
        const s = this.state, seat = client.userData.seat, cell = msg && msg.cell;
        if (seat < 0)
            return this.refuse(client, "not_a_player");
        if (s.winner !== -1)
            return this.refuse(client, "game_over");
        if (s.turn !== seat)
            return this.refuse(client, "not_your_turn");
        if (!Number.isInteger(cell) || cell < 0 || cell > 8 || s.cells[cell] !== 0)
            return this.refuse(client, "illegal_move");
        s.cells[cell] = seat + 1;
        s.moves++;
        if (won(s.cells, seat + 1))
            s.winner = seat;
        else if (s.moves === 9)
            s.winner = 2;
        else
            s.turn = 1 - seat;
    }

    again(client) {
        const s = this.state;
        if (client.userData.seat < 0)
            return this.refuse(client, "not_a_player");
        if (s.winner === -1)
            return this.refuse(client, "not_over");
        for (let i = 0; i < 9; i++)
            s.cells[i] = 0;
        s.turn = 0;
        s.moves = 0;
        s.winner = -1;
        s.round++;
    }
}

function option(name, dflt) {
    const i = process.argv.indexOf(name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const listen = option("--listen", "127.0.0.1:0");
const patchRate = Number(option("--patch-rate", "5"));
const colon = listen.lastIndexOf(":");
const host = listen.slice(0, colon), port = Number(listen.slice(colon + 1));
if (!/^127\./.test(host) || !Number.isInteger(port) || !(patchRate > 0)) {
    console.error("usage: node server.js [--listen 127.x.y.z:PORT] [--patch-rate MS]");
    process.exit(2);
}

const transport = new WebSocketTransport();
const server = new Server({ transport, greet: false });
server.define("tictactoe", TicTacToe);
server.listen(port, host).then(() => {
    const addr = transport.server.address();
    process.stdout.write(`colyseus listening on ws://${host}:${addr.port}/\n`);
}, (err) => {
    console.error(`colyseus: cannot listen on ${listen}: ${err.message}`);
    process.exit(1);
});
// The driver holds our standard input: its end is ours.
process.stdin.on("end", () => server.gracefullyShutdown(true));
process.stdin.on("error", () => server.gracefullyShutdown(true));
process.stdin.resume();
