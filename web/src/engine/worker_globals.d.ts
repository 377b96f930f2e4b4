// The few worker-only globals the engine worker uses. tsconfig.json checks all of web/src with the
// dom lib; the webworker lib redeclares most of it (the two cannot be loaded together), so these are
// declared here instead of checking the worker files under a second tsconfig.

/** FileReaderSync (workers only): lazy_file.js reads a dropped file's blocks with it. */
declare class FileReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}

/** OPFS synchronous access (workers only): opfs_fs.js writes the engine's database through it. */
interface FileSystemSyncAccessHandle {
  read(buffer: ArrayBufferView, options?: { at?: number }): number;
  write(buffer: ArrayBufferView, options?: { at?: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

interface FileSystemFileHandle {
  createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle>;
}
