const mu = (l) => { const m = process.memoryUsage(); console.log(l, (m.rss/1e6).toFixed(1), 'peak', (process.resourceUsage().maxRSS/1e3).toFixed(1), 'cpu', (process.cpuUsage().user/1000).toFixed(0)); };
mu('start');
if (process.argv[2]==='pool') require('undici/lib/dispatcher/pool.js');
if (process.argv[2]==='wasm') { const m = new WebAssembly.Module(require('undici/lib/llhttp/llhttp_simd-wasm.js')); globalThis.i = new WebAssembly.Instance(m, {env: new Proxy({}, {get: () => () => 0})}); }
(async () => { for (let i=0;i<8;i++){ await new Promise(r => setTimeout(r, 100)); mu('later'+i);} })();
