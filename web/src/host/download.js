// @ts-check
// The one place the page hands a file to the user (downloads of databases, configs, exports).

/** @param {Blob} blob @param {string} name */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
