// class-transformer keeps its `@Type` metadata here; its typings live under `types/`.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
