// undici 7 has no `exports` map; these are the files its package root takes Pool, ProxyAgent and
// util from (undici/index.js). Typed as the root's own exports; test/http/undici-pieces.test.ts
// checks that each is the very object the root exports, so an undici that moves one fails there.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const pool: typeof Pool;
  export default pool;
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import type { ProxyAgent } from 'undici';

  const proxyAgent: typeof ProxyAgent;
  export default proxyAgent;
}

declare module 'undici/lib/core/util.js' {
  import type { util } from 'undici';

  const coreUtil: typeof util;
  export default coreUtil;
}

declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';

  const connect: Dispatcher['connect'];
  export default connect;
}
