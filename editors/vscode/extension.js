// Starts `othc lsp` for .oth files. The othc command is found on PATH, or
// where the `othismo.othcPath` setting says.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("othismo").get("othcPath") || "othc";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "othismo",
    "Othismo (othc lsp)",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "oth" }] }
  );
  client.start().catch((e) => {
    vscode.window.showErrorMessage(
      `Could not start \`${command} lsp\`: ${e.message}. Install othc or set othismo.othcPath.`
    );
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
