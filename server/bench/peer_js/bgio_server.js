// A boardgame.io 0.50 server for the peer benchmark: the lobby and the socket.io transport on
// one loopback port, storage in memory (the default) or boardgame.io's FlatFile.
// Usage: node bgio_server.js PORT memory|flatfile [DIR]
'use strict';

const { Server, FlatFile } = require('boardgame.io/server');
const { GinLite } = require('./game');

const [port, storage, dir] = process.argv.slice(2);
const db = storage === 'flatfile' ? new FlatFile({ dir, logging: false }) : undefined;
const server = Server({ games: [GinLite], db });
// Loopback only: boardgame.io listens on every interface; its transport's listen passes its
// arguments on to the HTTP server, so a host can be put in between.
const listen = server.app.listen;
server.app.listen = (p, cb) => listen.call(server.app, p, '127.0.0.1', cb);
server.run({ port: Number(port) }, () => console.log(`listening ${port} ${storage}`));
