/**
 * The Tokenizer tab of a transformers model: what its tokenizer files say (tokenizer_config.json,
 * chat_template.jinja, chat_template.json, generation_config.json): the special tokens with their ids, the added
 * tokens, generate()'s stop tokens and defaults, and the chat templates rendered on a sample conversation, with the
 * check that generation stops where the template ends a turn. Over HTTP the files are read when this tab opens
 * (features/load/SidecarsOnDemand.tsx).
 */
import { useState } from 'react';
import { endOfTurnFinding } from '../../core/analysis/tokenizer/end-of-turn';
import { chatTemplateInput } from '../../core/analysis/tokenizer/tokenizer-sample';
import type { ChatTemplateEntry, TokenizerSection } from '../../core/analysis/tokenizer/tokenizer-types';
import { groupDigits } from '../../core/number-format';
import { MAX_TOKENIZER_FILE_BYTES } from '../../core/limits';
import type { LoadResult } from '../../core/result';
import { numeric, TableHead } from '../../lib/TableHead';
import { selectTokenizerNotFound, selectTokenizerReading } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import { ChatTemplateCard, TurnEndNote, useChatPreview } from '../chat-template/ChatTemplateCard';
import { Fact } from '../insights/QuantizationPanel';
import { VocabularyCard } from './VocabularyCard';
import './tokenizer.css';

/** Added tokens listed before the rest fold behind "show all". */
const FOLDED_TOKENS = 32;

export function TokenizerPanel({ result }: { result: LoadResult }) {
  const reading = useAppStore(selectTokenizerReading);
  const notFound = useAppStore(selectTokenizerNotFound);
  const asked = result.tokenizerOnDemand;
  const section = result.sections.tokenizer;
  if (section === undefined) {
    const onlyVocabulary = result.vocabularyOnDemand !== undefined && asked === undefined && !reading;
    return (
      <>
        <p className="muted" role="status" data-testid="tokenizer-status">
          {asked !== undefined || reading
            ? `Reading ${(asked ?? []).join(', ')} beside the model…`
            : `No ${onlyVocabulary ? 'tokenizer_config.json, chat template or generation_config.json' : 'usable tokenizer file'} beside the model${notFound ? `: tried ${notFound.join(', ')}, each missing, over ${MAX_TOKENIZER_FILE_BYTES / 2 ** 20} MiB or not valid JSON (UTF-8 text for a .jinja)` : ''}${!onlyVocabulary ? '.' : result.vocabularyBytes !== undefined ? '; its tokenizer.json is there.' : '; a tokenizer.json may be, and is tried only when asked.'}`}
        </p>
        {onlyVocabulary && <VocabularyCard result={result} />}
      </>
    );
  }
  return (
    <div className="tokenizer-panel" data-testid="tokenizer-panel">
      <TokenizerFacts section={section} />
      {section.generation && <GenerationCard section={section} />}
      {section.templates.length > 0 ? (
        <TemplatesCard section={section} />
      ) : (
        <p className="muted" data-testid="tokenizer-no-template">
          No chat template: neither tokenizer_config.json nor a chat_template.jinja carries one, so apply_chat_template
          refuses this tokenizer (a base model, or a template that was not saved).
        </p>
      )}
      {section.addedTokens.length > 0 && <AddedTokens section={section} />}
      <VocabularyCard result={result} section={section} />
    </div>
  );
}

function TokenizerFacts({ section }: { section: TokenizerSection }) {
  return (
    <section className="insight" aria-label="Tokenizer">
      <h3>Tokenizer</h3>
      <dl className="facts">
        <Fact label="Class" value={section.tokenizerClass ?? '—'} testId="tokenizer-class" />
        <Fact
          label="Max length"
          value={section.modelMaxLength === null ? 'not set' : `${groupDigits(section.modelMaxLength)} tokens`}
        />
        <Fact label="Adds BOS" value={yesNo(section.addBosToken)} title="add_bos_token: prepended when encoding" />
        <Fact label="Adds EOS" value={yesNo(section.addEosToken)} title="add_eos_token: appended when encoding" />
        <Fact
          label="Added tokens"
          value={
            section.addedTokenCount === 0
              ? 'none listed'
              : `${groupDigits(section.addedTokenCount)} (ids up to ${section.highestAddedId})`
          }
          testId="tokenizer-added-count"
        />
        <Fact
          label="Read from"
          value={[...section.files, ...(section.vocabulary ? [section.vocabulary.file] : [])].join(', ') || '—'}
        />
      </dl>
      {section.special.length > 0 && (
        <table className="plain-table" data-testid="tokenizer-special-tokens">
          <caption>Special tokens</caption>
          <TableHead columns={['Role', numeric('Id'), 'Text']} />
          <tbody>
            {section.special.map((token) => (
              <tr key={token.role}>
                <td>{token.role.toUpperCase()}</td>
                <td className="num">{token.id ?? '—'}</td>
                <td className="mono">{JSON.stringify(token.text)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function GenerationCard({ section }: { section: TokenizerSection }) {
  const generation = section.generation;
  if (generation === null) {
    return null;
  }
  const textOf = (id: number) => section.addedTokens.find((token) => token.id === id)?.text;
  const describe = (id: number) => (textOf(id) ? `${id} ${textOf(id)}` : String(id));
  return (
    <section className="insight" aria-label="Generation defaults">
      <h3>
        Generation defaults <span className="muted">({generation.file})</span>
      </h3>
      <dl className="facts">
        <Fact
          label="Stops at"
          value={generation.eosIds.length === 0 ? 'no eos_token_id' : generation.eosIds.map(describe).join(', ')}
          testId="tokenizer-stop-ids"
        />
        {generation.bosId !== null && <Fact label="bos_token_id" value={describe(generation.bosId)} />}
        {generation.padId !== null && <Fact label="pad_token_id" value={describe(generation.padId)} />}
        {generation.settings.map((setting) => (
          <Fact key={setting.key} label={setting.key} value={setting.value} />
        ))}
      </dl>
    </section>
  );
}

function TemplatesCard({ section }: { section: TokenizerSection }) {
  const [chosen, setChosen] = useState(0);
  const template: ChatTemplateEntry = section.templates[Math.min(chosen, section.templates.length - 1)];
  const preview = useChatPreview(chatTemplateInput(section, template));
  return (
    <ChatTemplateCard source={template.source} preview={preview}>
      <p className="muted tokenizer-template-source">
        {section.templates.length > 1 ? (
          <label>
            Template{' '}
            <select value={chosen} onChange={(event) => setChosen(Number(event.target.value))}>
              {section.templates.map((entry, at) => (
                <option key={`${entry.name}-${at}`} value={at}>
                  {entry.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <>Template “{template.name}”</>
        )}{' '}
        from {template.file}
        {template.name === 'default' && section.shadowedTemplate && (
          <>
            {' '}
            (it replaces the different one in {section.shadowedTemplate.file}, as transformers 4.47 and later read it;
            older versions use that one)
          </>
        )}
        .
      </p>
      {template.name === 'default' && preview?.ok && <TurnEnd section={section} />}
    </ChatTemplateCard>
  );
}

/** Where the default template ends the assistant's turn and whether generation stops there (the analysis' check). */
function TurnEnd({ section }: { section: TokenizerSection }) {
  return <TurnEndNote end={section.turnEnd} finding={endOfTurnFinding(section.turnEnd, section)} />;
}

function AddedTokens({ section }: { section: TokenizerSection }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? section.addedTokens : section.addedTokens.slice(0, FOLDED_TOKENS);
  return (
    <section className="insight" aria-label="Added tokens">
      <h3>Added tokens</h3>
      <ul className="tokenizer-chips" data-testid="tokenizer-added-tokens">
        {shown.map((token) => (
          <li key={token.id} title={`id ${token.id}${token.special ? ', special' : ''}`}>
            <code>{token.text}</code> <span className="muted">{token.id}</span>
          </li>
        ))}
      </ul>
      {section.addedTokens.length > FOLDED_TOKENS && (
        <button type="button" onClick={() => setShowAll(!showAll)}>
          {showAll ? 'Show fewer' : `Show all ${groupDigits(section.addedTokens.length)}`}
        </button>
      )}
      {section.addedTokenCount > section.addedTokens.length && (
        <p className="muted">The first {groupDigits(section.addedTokens.length)} are listed.</p>
      )}
    </section>
  );
}

function yesNo(value: boolean | null): string {
  return value === null ? 'not set' : value ? 'yes' : 'no';
}
