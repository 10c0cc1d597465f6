import socket, subprocess, json, time
exec(open('raw.py').read().split('MODES = ')[0])
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname()); a, _ = l.accept()
p = subprocess.Popen([RW, "mcp", "--root", ROOT], stdin=a, stdout=a)
a.close()
f = c.makefile("rwb")
def rt(o, n=1):
    f.write(line(o)); f.flush()
    return [json.loads(f.readline()) for _ in range(n)] if n else None
print("init:", rt(INIT)[0]["result"]["serverInfo"]["name"]); rt(INITED, 0)
t0 = time.time(); r = rt(call(1, path="name.pl", fresh=True))[0]
print("tcp read:", len(json.dumps(r)), "bytes", r["result"]["structuredContent"]["end_line"], f"{time.time()-t0:.3f}s")
c.shutdown(socket.SHUT_WR); print("exit", p.wait(5))
