// Forked by handles-app.mjs: answers on every connection of a server it is sent, and on
// a socket it is sent, with its pid, then says so; leaves on "bye".
let server = null;
process.on("message", (message, handle) => {
  if (message === "server") {
    server = handle;
    server.on("connection", (socket) => socket.end(`${process.pid} accepted on the server it was sent`));
    process.send(`server: ${handle?.constructor.name}, listening ${handle?.listening}`);
  } else if (message === "socket") {
    handle.end(`${process.pid} wrote on the socket it was sent`);
    process.send(`socket: ${handle?.constructor.name}`);
  } else if (message === "bye") {
    server?.close();
    process.disconnect();
  }
});
process.send("ready");
