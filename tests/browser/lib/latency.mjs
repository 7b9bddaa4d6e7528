// A page's network link for the browser tests: a TCP proxy in front of the server that delays
// every chunk by a one-way latency in each direction (in order: a chunk read at t leaves at
// t + latency, or after the chunk before it), and that can black-hole (swallow everything from
// then on, new connections too, without closing anything: a link that silently died). The page
// opens the proxy's URL: its HTTP requests and its WebSocket all go through it. (The Rust tests'
// tests/support/netem.rs does the same for test clients.)
//
//   const link = await startLatencyProxy(server.port, { oneWayMs: 400 });
//   link.url            // 'http://127.0.0.1:PORT': open pages here
//   link.blackHole();
//   await link.close(); // closes every connection and the listener

import net from 'node:net';

/**
 * @param {number} targetPort  the server's port on 127.0.0.1
 * @param {{ oneWayMs: number }} options
 */
export async function startLatencyProxy(targetPort, { oneWayMs }) {
  const sockets = new Set();
  let blackHole = false;

  /**
   * @param {net.Socket} from
   * @param {net.Socket} to
   */
  function carry(from, to) {
    let last = 0;
    const later = (send) => {
      const departure = Math.max(Date.now() + oneWayMs, last);
      last = departure;
      setTimeout(() => {
        if (!blackHole && !to.destroyed) send();
      }, departure - Date.now());
    };
    from.on('data', (chunk) => {
      if (!blackHole) later(() => to.write(chunk));
    });
    from.on('end', () => later(() => to.end()));
    from.on('error', () => to.destroy());
  }

  const listener = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    carry(client, upstream);
    carry(upstream, client);
  });
  await new Promise((listening) => listener.listen(0, '127.0.0.1', () => listening(undefined)));
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    blackHole() {
      blackHole = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => listener.close(() => closed(undefined)));
    },
  };
}
