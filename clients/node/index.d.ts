// SPDX-License-Identifier: MIT
// index.d.ts - types for index.js.
export interface StartOptions {
  /** The binary; default $SHARDLOCAL_BIN, else shardlocal on PATH. */
  bin?: string;
  /** Extra server flags, e.g. ['--throttle-scale', '0.01']. */
  args?: string[];
  /** Use this running server (default $SHARDLOCAL_ENDPOINT). */
  endpoint?: string;
  /** Default true: time moves only through advance(). */
  virtualClock?: boolean;
  /** Default true: tables in memory; false: a temporary data dir. */
  inMemory?: boolean;
  /** How long to wait for the server to answer (default 10000). */
  timeoutMs?: number;
}

export interface FaultOptions {
  op?: 'read' | 'write' | 'any';
  count?: number;
  cause?: 'KeyRange' | 'ProvisionedThroughput' | 'MaxOnDemand' | 'AccountLimit';
  fraction?: number;
}

export declare class Server {
  readonly endpoint: string;
  readonly port: number;
  info(): Promise<any>;
  advance(seconds: number): Promise<number>;
  fault(table: string, key?: string | number | Uint8Array | object,
        options?: FaultOptions): Promise<any>;
  partitions(table: string, index?: string): Promise<any[]>;
  hotkeys(table: string, n?: number, index?: string): Promise<any>;
  baseline(): Promise<void>;
  reset(): Promise<void>;
  stop(): Promise<number | null>;
}

export declare function start(options?: StartOptions): Promise<Server>;
export declare function stop(server?: Server): Promise<number | null>;
export declare function findBinary(bin?: string): string;
