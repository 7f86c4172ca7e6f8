const mu = (l) => { const m = process.memoryUsage(); console.log(l, (m.rss/1e6).toFixed(1), 'peak', (process.resourceUsage().maxRSS/1e3).toFixed(1), 'cpu', (process.cpuUsage().user/1000).toFixed(0)); };
mu('start');
const Pool = require('undici/lib/dispatcher/pool.js');
mu('pool');
const pool = new Pool('http://127.0.0.1:18544', { connections: 1 });
const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] });
new Promise((resolve, reject) => {
  const chunks = [];
  pool.dispatch({ path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer none' }, body }, {
    onRequestStart() {}, onResponseStart(c, s) {}, onResponseData(c, d) { chunks.push(d); }, onResponseEnd() { resolve(Buffer.concat(chunks).toString()); }, onResponseError(c, e) { reject(e); },
  });
}).then(async () => { mu('after'); for (let i=0;i<8;i++){ await new Promise(r => setTimeout(r, 100)); mu('later'+i);} await pool.close(); mu('closed'); });
