/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;

  namespace autocannon {
    interface RequestSpec {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Called before each request is sent; returns the request to send. */
      setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      requests?: RequestSpec[];
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      requests: Histogram & { total: number; sent: number };
      latency: Histogram;
      throughput: Histogram;
      errors: number;
      timeouts: number;
      duration: number;
      non2xx: number;
      '2xx': number;
      '3xx': number;
    }
  }

  export = autocannon;
}
