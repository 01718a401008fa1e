// The configuration screen: option sets, values checked and migrated.
import { h, field, pretty, table, errorBox } from './dom.js';
import { Wait, api } from './api.js';
import { ToolForm, FormOrJson, markIssues } from './forms.js';

// ---- Configuration -------------------------------------------------------------------------
// Option sets (spec section 5): versions and digests, values checked against a version's
// schema (by the Inspector, with the SDK's rules), and migrations run by the extension.
export class Configuration {
  constructor(ws, panel) {
    this.ws = ws;
    this.panel = panel;
    this.sets = [];
    const p = `${ws.id}-config`;
    this.prefix = p;
    this.setSelect = h('select', { onchange: () => this.showSet() });
    this.versionSelect = h('select', { onchange: () => this.showVersion() });
    this.targetSelect = h('select');
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Configuration status' });
    this.edit = new FormOrJson(p, 'values', this.status);
    this.result = h('div', { role: 'region', 'aria-label': 'Configuration result' });
    this.listArea = h('div');
    this.listWait = new Wait();
    // Checking and migrating share the status and the result: one supersedes the other.
    this.actionWait = new Wait();
    panel.append(this.listArea);
    this.load();
  }

  cancel() {
    this.listWait.cancel();
    this.actionWait.cancel();
  }

  async load() {
    this.listArea.replaceChildren(h('p', { role: 'status' }, 'Reading the option sets…'), this.listWait.button);
    let data;
    try {
      data = await this.listWait.run('Cancel reading the option sets',
        (cancel) => api('GET', `${this.ws.base}/configuration`, undefined, { what: 'the option sets', cancel }));
    } catch (e) {
      if (e.code === 'configuration_not_offered') {
        this.listArea.replaceChildren(h('p', { class: 'empty' }, 'This extension publishes no option set (no aep.configuration capability).'));
      } else {
        this.listArea.replaceChildren(errorBox(e), h('button', { type: 'button', onclick: () => this.load() }, 'Try again'));
      }
      return;
    }
    this.sets = data.optionSets || [];
    if (!this.sets.length) {
      this.listArea.replaceChildren(h('p', { class: 'empty' }, 'The extension\'s catalog lists no option set.'));
      return;
    }
    const versions = [];
    for (const s of this.sets) {
      for (const v of s.versions) {
        const check = v.digestCheck.matches
          ? h('span', { class: 'badge good' }, 'matches')
          : [h('span', { class: 'badge bad' }, 'differs'), ' computed ', h('code', {}, v.digestCheck.computed)];
        versions.push([h('code', {}, s.id), `${v.version}${v.version === s.preferredVersion ? ' (preferred)' : ''}${v.deprecated ? ' (deprecated)' : ''}`, h('code', {}, v.schemaDigest), check]);
      }
    }
    this.setSelect.replaceChildren(...this.sets.map((s) => h('option', { value: s.id }, `${s.id} (${s.contributionKind} ${s.contributionId})`)));
    const form = h('form', { 'aria-label': 'Option values', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.validate(); } },
      h('div', { class: 'row' },
        field(`${this.prefix}-set`, 'Option set', this.setSelect),
        field(`${this.prefix}-version`, 'Version', this.versionSelect)),
      this.edit.switch, this.edit.area, this.edit.textField,
      h('div', { class: 'actions' },
        h('button', { type: 'submit' }, 'Check values')),
      h('div', { class: 'row' },
        field(`${this.prefix}-target`, 'Migrate to version', this.targetSelect),
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.migrate() }, 'Migrate values'))));
    this.listArea.replaceChildren(
      table('Option sets', ['Id', 'Contribution', 'Scope', 'Preferred', 'Migrations'],
        this.sets.map((s) => [h('code', {}, s.id), `${s.contributionKind} ${s.contributionId}`, s.scope, s.preferredVersion,
          (s.migrations || []).map((m) => `${m.fromVersion} → ${m.toVersion}`).join(', ') || '—'])),
      table('Option set versions', ['Option set', 'Version', 'Published digest', 'Digest of the schema as read'], versions),
      h('h3', {}, 'Check and migrate values'),
      h('p', { class: 'hint' }, 'Values are checked by the Inspector against the version\'s schema with the SDK\'s rules (those an AEP SDK extension applies to nativeOptions). Migrations are run by the extension (POST /aep/configuration/migrate).'),
      form, this.status, h('div', { class: 'actions' }, this.actionWait.button), this.result);
    this.showSet();
  }

  currentSet() {
    return this.sets.find((s) => s.id === this.setSelect.value);
  }

  currentVersion() {
    const set = this.currentSet();
    return set && set.versions.find((v) => v.version === this.versionSelect.value);
  }

  showSet() {
    const set = this.currentSet();
    if (!set) return;
    this.versionSelect.replaceChildren(...set.versions.map((v) => h('option', { value: v.version }, `${v.version}${v.deprecated ? ' (deprecated)' : ''}`)));
    this.versionSelect.value = set.preferredVersion;
    this.showVersion();
  }

  showVersion() {
    const set = this.currentSet();
    const version = this.currentVersion();
    if (!version) return;
    this.targetSelect.replaceChildren(...set.versions.filter((v) => v.version !== version.version)
      .map((v) => h('option', { value: v.version }, v.version)));
    const reachable = (set.migrations || []).find((m) => m.fromVersion === version.version);
    if (reachable) this.targetSelect.value = reachable.toVersion;
    const form = new ToolForm(`${this.prefix}-${set.versions.indexOf(version)}`, version.schema, 'This version\'s schema has no properties: edit the values as JSON.');
    this.edit.show(form, h('details', {}, h('summary', {}, 'Schema'), h('pre', { 'aria-label': 'Option schema' }, pretty(version.schema))));
    this.result.replaceChildren();
    this.status.textContent = '';
  }

  issueList(issues) {
    return h('ul', { 'aria-label': 'Problems' }, issues.map((i) => h('li', {}, h('code', {}, i.path), ` ${i.message} `, h('span', { class: 'badge muted' }, i.code))));
  }

  async validate() {
    const set = this.currentSet();
    const version = this.currentVersion();
    this.result.replaceChildren();
    const values = this.edit.values(this.result);
    if (!values) return;
    this.status.textContent = `Checking values against ${set.id} ${version.version}…`;
    try {
      const data = await this.actionWait.run('Cancel checking values',
        (cancel) => api('POST', `${this.ws.base}/configuration/validate`, { optionSet: set.id, version: version.version, values }, { what: 'the values check', cancel }));
      if (data.valid) {
        this.status.textContent = `Valid for ${data.optionSet} version ${data.version}${data.deprecated ? ' (deprecated)' : ''}.`;
        this.result.replaceChildren(h('p', {}, h('span', { class: 'badge good' }, 'valid'), ' nativeOptions to send: '),
          h('pre', { 'aria-label': 'Native options' }, pretty({ optionSet: data.optionSet, version: data.version, schemaDigest: data.schemaDigest, values })));
      } else {
        this.status.textContent = `${data.issues.length} problem${data.issues.length === 1 ? '' : 's'} against ${data.optionSet} version ${data.version}.`;
        if (!this.edit.json) markIssues(this.edit.form, data.issues);
        this.result.replaceChildren(h('div', { class: 'error-box' }, h('strong', {}, 'The values do not match the schema:'), this.issueList(data.issues)));
      }
    } catch (e) {
      if (e.code === 'superseded') return;
      this.status.textContent = e.code === 'cancelled' ? 'Check cancelled.' : 'The check failed.';
      this.result.replaceChildren(errorBox(e));
    }
  }

  async migrate() {
    const set = this.currentSet();
    const version = this.currentVersion();
    const target = this.targetSelect.value;
    this.result.replaceChildren();
    if (!target) {
      this.status.textContent = 'This option set has only one version: there is nothing to migrate to.';
      return;
    }
    const values = this.edit.values(this.result);
    if (!values) return;
    this.status.textContent = `Migrating from ${version.version} to ${target}…`;
    try {
      const data = await this.actionWait.run('Cancel migrating values',
        (cancel) => api('POST', `${this.ws.base}/configuration/migrate`,
          { optionSet: set.id, fromVersion: version.version, toVersion: target, values }, { what: 'the migration', cancel }));
      const parts = [
        h('h4', {}, 'Migrated values'),
        h('pre', { 'aria-label': 'Migrated values' }, pretty(data.options.values)),
        h('h4', {}, 'Migrated options (the envelope to send)'),
        h('pre', { 'aria-label': 'Migrated options' }, pretty(data.options)),
      ];
      if (data.check) {
        parts.push(data.check.valid
          ? h('p', {}, h('span', { class: 'badge good' }, 'valid'), ` against version ${data.options.version}`)
          : h('div', { class: 'error-box' }, h('strong', {}, `The result does not match version ${data.options.version}:`), this.issueList(data.check.issues)));
      }
      this.result.replaceChildren(...parts);
      this.status.textContent = `Migrated from ${version.version} to ${data.options.version} in ${data.elapsedMs.toFixed(1)} ms.`;
    } catch (e) {
      if (e.code === 'superseded') return;
      this.status.textContent = e.code === 'cancelled' ? 'Migration cancelled.' : 'The extension did not migrate the values.';
      this.result.replaceChildren(errorBox(e));
    }
  }
}

