var e=globalThis,t=e=>e,n=e.trustedTypes,r=n?n.createPolicy(`lit-html`,{createHTML:e=>e}):void 0,i=`$lit$`,a=`lit$${Math.random().toFixed(9).slice(2)}$`,o=`?`+a,s=`<${o}>`,c=document,l=()=>c.createComment(``),u=e=>e===null||typeof e!=`object`&&typeof e!=`function`,d=Array.isArray,f=e=>d(e)||typeof e?.[Symbol.iterator]==`function`,p=`[ 	
\f\r]`,m=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,ee=/-->/g,te=/>/g,h=RegExp(`>|${p}(?:([^\\s"'>=/]+)(${p}*=${p}*(?:[^ \t\n\f\r"'\`<>=]|("|')|))|$)`,`g`),ne=/'/g,re=/"/g,ie=/^(?:script|style|textarea|title)$/i,g=(e=>(t,...n)=>({_$litType$:e,strings:t,values:n}))(1),_=Symbol.for(`lit-noChange`),v=Symbol.for(`lit-nothing`),ae=new WeakMap,y=c.createTreeWalker(c,129);function oe(e,t){if(!d(e)||!e.hasOwnProperty(`raw`))throw Error(`invalid template strings array`);return r===void 0?t:r.createHTML(t)}var se=(e,t)=>{let n=e.length-1,r=[],o,c=t===2?`<svg>`:t===3?`<math>`:``,l=m;for(let t=0;t<n;t++){let n=e[t],u,d,f=-1,p=0;for(;p<n.length&&(l.lastIndex=p,d=l.exec(n),d!==null);)p=l.lastIndex,l===m?d[1]===`!--`?l=ee:d[1]===void 0?d[2]===void 0?d[3]!==void 0&&(l=h):(ie.test(d[2])&&(o=RegExp(`</`+d[2],`g`)),l=h):l=te:l===h?d[0]===`>`?(l=o??m,f=-1):d[1]===void 0?f=-2:(f=l.lastIndex-d[2].length,u=d[1],l=d[3]===void 0?h:d[3]===`"`?re:ne):l===re||l===ne?l=h:l===ee||l===te?l=m:(l=h,o=void 0);let g=l===h&&e[t+1].startsWith(`/>`)?` `:``;c+=l===m?n+s:f>=0?(r.push(u),n.slice(0,f)+i+n.slice(f)+a+g):n+a+(f===-2?t:g)}return[oe(e,c+(e[n]||`<?>`)+(t===2?`</svg>`:t===3?`</math>`:``)),r]},ce=class e{constructor({strings:t,_$litType$:r},s){let c;this.parts=[];let u=0,d=0,f=t.length-1,p=this.parts,[m,ee]=se(t,r);if(this.el=e.createElement(m,s),y.currentNode=this.el.content,r===2||r===3){let e=this.el.content.firstChild;e.replaceWith(...e.childNodes)}for(;(c=y.nextNode())!==null&&p.length<f;){if(c.nodeType===1){if(c.hasAttributes())for(let e of c.getAttributeNames())if(e.endsWith(i)){let t=ee[d++],n=c.getAttribute(e).split(a),r=/([.?@])?(.*)/.exec(t);p.push({type:1,index:u,name:r[2],strings:n,ctor:r[1]===`.`?ue:r[1]===`?`?de:r[1]===`@`?fe:S}),c.removeAttribute(e)}else e.startsWith(a)&&(p.push({type:6,index:u}),c.removeAttribute(e));if(ie.test(c.tagName)){let e=c.textContent.split(a),t=e.length-1;if(t>0){c.textContent=n?n.emptyScript:``;for(let n=0;n<t;n++)c.append(e[n],l()),y.nextNode(),p.push({type:2,index:++u});c.append(e[t],l())}}}else if(c.nodeType===8){if(c.data===o)p.push({type:2,index:u});else{let e=-1;for(;(e=c.data.indexOf(a,e+1))!==-1;)p.push({type:7,index:u}),e+=a.length-1}}u++}}static createElement(e,t){let n=c.createElement(`template`);return n.innerHTML=e,n}};function b(e,t,n=e,r){if(t===_)return t;let i=r===void 0?n._$Cl:n._$Co?.[r],a=u(t)?void 0:t._$litDirective$;return i?.constructor!==a&&(i?._$AO?.(!1),a===void 0?i=void 0:(i=new a(e),i._$AT(e,n,r)),r===void 0?n._$Cl=i:(n._$Co??=[])[r]=i),i!==void 0&&(t=b(e,i._$AS(e,t.values),i,r)),t}var le=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:n}=this._$AD,r=(e?.creationScope??c).importNode(t,!0);y.currentNode=r;let i=y.nextNode(),a=0,o=0,s=n[0];for(;s!==void 0;){if(a===s.index){let t;s.type===2?t=new x(i,i.nextSibling,this,e):s.type===1?t=new s.ctor(i,s.name,s.strings,this,e):s.type===6&&(t=new pe(i,this,e)),this._$AV.push(t),s=n[++o]}a!==s?.index&&(i=y.nextNode(),a++)}return y.currentNode=c,r}p(e){let t=0;for(let n of this._$AV)n!==void 0&&(n.strings===void 0?n._$AI(e[t]):(n._$AI(e,n,t),t+=n.strings.length-2)),t++}},x=class e{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,n,r){this.type=2,this._$AH=v,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=n,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=b(this,e,t),u(e)?e===v||e==null||e===``?(this._$AH!==v&&this._$AR(),this._$AH=v):e!==this._$AH&&e!==_&&this._(e):e._$litType$===void 0?e.nodeType===void 0?f(e)?this.k(e):this._(e):this.T(e):this.$(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==v&&u(this._$AH)?this._$AA.nextSibling.data=e:this.T(c.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:n}=e,r=typeof n==`number`?this._$AC(e):(n.el===void 0&&(n.el=ce.createElement(oe(n.h,n.h[0]),this.options)),n);if(this._$AH?._$AD===r)this._$AH.p(t);else{let e=new le(r,this),n=e.u(this.options);e.p(t),this.T(n),this._$AH=e}}_$AC(e){let t=ae.get(e.strings);return t===void 0&&ae.set(e.strings,t=new ce(e)),t}k(t){d(this._$AH)||(this._$AH=[],this._$AR());let n=this._$AH,r,i=0;for(let a of t)i===n.length?n.push(r=new e(this.O(l()),this.O(l()),this,this.options)):r=n[i],r._$AI(a),i++;i<n.length&&(this._$AR(r&&r._$AB.nextSibling,i),n.length=i)}_$AR(e=this._$AA.nextSibling,n){for(this._$AP?.(!1,!0,n);e!==this._$AB;){let n=t(e).nextSibling;t(e).remove(),e=n}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},S=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,n,r,i){this.type=1,this._$AH=v,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=i,n.length>2||n[0]!==``||n[1]!==``?(this._$AH=Array(n.length-1).fill(new String),this.strings=n):this._$AH=v}_$AI(e,t=this,n,r){let i=this.strings,a=!1;if(i===void 0)e=b(this,e,t,0),a=!u(e)||e!==this._$AH&&e!==_,a&&(this._$AH=e);else{let r=e,o,s;for(e=i[0],o=0;o<i.length-1;o++)s=b(this,r[n+o],t,o),s===_&&(s=this._$AH[o]),a||=!u(s)||s!==this._$AH[o],s===v?e=v:e!==v&&(e+=(s??``)+i[o+1]),this._$AH[o]=s}a&&!r&&this.j(e)}j(e){e===v?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??``)}},ue=class extends S{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===v?void 0:e}},de=class extends S{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==v)}},fe=class extends S{constructor(e,t,n,r,i){super(e,t,n,r,i),this.type=5}_$AI(e,t=this){if((e=b(this,e,t,0)??v)===_)return;let n=this._$AH,r=e===v&&n!==v||e.capture!==n.capture||e.once!==n.once||e.passive!==n.passive,i=e!==v&&(n===v||r);r&&this.element.removeEventListener(this.name,this,n),i&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH==`function`?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},pe=class{constructor(e,t,n){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=n}get _$AU(){return this._$AM._$AU}_$AI(e){b(this,e)}},me={M:i,P:a,A:o,C:1,L:se,R:le,D:f,V:b,I:x,H:S,N:de,U:fe,B:ue,F:pe},he=e.litHtmlPolyfillSupport;he?.(ce,x),(e.litHtmlVersions??=[]).push(`3.3.3`);var ge=(e,t,n)=>{let r=n?.renderBefore??t,i=r._$litPart$;if(i===void 0){let e=n?.renderBefore??null;r._$litPart$=i=new x(t.insertBefore(l(),e),e,void 0,n??{})}return i._$AI(e),i},C=class extends Error{status;constructor(e,t){super(e),this.status=t,this.name=`ApiError`}},_e=`api/v1`;function ve(e,t,n){let r=n&&typeof n==`object`&&`error`in n&&typeof n.error==`string`?n.error:null;return t===null?`Could not ${e}: Switchboard is not answering. Is it still running?`:t===401?`Could not ${e}: this page is not signed in, so it can only show the status. Open it with \`switchboard dashboard\` (or from the Switchboard app) to change servers.`:t===403?`Could not ${e}: Switchboard only accepts requests from pages it serves itself on this computer.`:t===404&&/log (in|out)/.test(e)&&!r?.startsWith(`no server`)?`Could not ${e}: this version of Switchboard does not support logging in yet.`:t===409?`Could not ${e}: Switchboard was started without a config file, so there is nowhere to save the change.`:r?`Could not ${e}: ${r}`:`Could not ${e} (the hub answered HTTP ${t}).`}async function w(e,t,n,r){let i;try{i=await fetch(`${_e}/${t}`,{method:e,headers:r===void 0?{Accept:`application/json`}:{Accept:`application/json`,"Content-Type":`application/json`},...r===void 0?{}:{body:JSON.stringify(r)},cache:`no-store`})}catch{throw new C(ve(n,null,null),null)}let a=null;try{a=await i.json()}catch{a=null}let o=a&&typeof a==`object`&&`ok`in a&&a.ok===!1;if(!i.ok||o)throw new C(ve(n,i.status,a),i.status);return a}function T(e,t,n,...r){let i=e.indexOf(` `);return w(e.slice(0,i),e.slice(i+1).replace(/^\/api\/v1\//,``).replace(/\{(\w+)\}/g,(e,n)=>encodeURIComponent(t[n]??``)),n,r[0])}function ye(e){return typeof e==`object`&&!!e&&Array.isArray(e.servers)&&typeof e.endpoint==`string`}async function be(){let e=await w(`GET`,`status`,`read the status`);if(!ye(e))throw new C(`Could not read the status: the answer did not come from a Switchboard hub.`,null);return e}var E={status:be,setEnabled:(e,t)=>t?T(`POST /api/v1/servers/{id}/enable`,{id:e},`enable ${e}`):T(`POST /api/v1/servers/{id}/disable`,{id:e},`disable ${e}`),refresh:e=>T(`POST /api/v1/servers/{id}/refresh`,{id:e},`refresh ${e}`),refreshAll:()=>T(`POST /api/v1/refresh`,{},`refresh all servers`),login:e=>T(`POST /api/v1/servers/{id}/login`,{id:e},`log in to ${e}`),logout:e=>T(`POST /api/v1/servers/{id}/logout`,{id:e},`log out of ${e}`),logs:e=>T(`GET /api/v1/servers/{id}/logs`,{id:e},`read the logs of ${e}`)};function xe(e,t,n=2e3){let r=null,i=null,a=null,o=!1,s=async()=>{if(i=null,!(o||r)){try{e(await E.status()),t(`polling`)}catch(e){t(`offline`,e instanceof Error?e.message:String(e))}!o&&!r&&(i=setTimeout(s,n))}},c=()=>{if(a=null,o||typeof EventSource>`u`){s();return}let n=new EventSource(`${_e}/events`);r=n,n.addEventListener(`snapshot`,n=>{try{let r=JSON.parse(n.data);if(!ye(r))return;e(r),t(`live`)}catch{}}),n.onerror=()=>{n.close(),r===n&&(r=null),o||(i||s(),a=setTimeout(c,5e3))}};return c(),()=>{o=!0,r?.close(),i&&clearTimeout(i),a&&clearTimeout(a)}}var D=1e3,O=60*D,k=60*O,Se=24*k;function A(e){if(!e)return null;let t=Date.parse(e);return Number.isNaN(t)?null:t}function j(e){let t=Math.max(0,Math.round(e));if(t<O)return`${Math.max(1,Math.round(t/D))} s`;if(t<k)return`${Math.round(t/O)} min`;if(t<Se){let e=Math.floor(t/k),n=Math.round((t-e*k)/O);return n===0||n===60?`${n===60?e+1:e} h`:`${e} h ${n} min`}let n=Math.round(t/Se);return n===1?`1 day`:`${n} days`}function M(e,t){let n=t-e;return n<5*D?`just now`:`${j(n)} ago`}function Ce(e,t){let n=e-t;return n<D?`now`:`in ${j(n)}`}function N(e,t,n=`${t}s`){return`${e} ${e===1?t:n}`}function P(e){let t=new Date(e),n=e=>String(e).padStart(2,`0`);return`${n(t.getHours())}:${n(t.getMinutes())}:${n(t.getSeconds())}`}function we(e,t=4){return e.length<=t?e.join(`, `):`${e.slice(0,t).join(`, `)} and ${e.length-t} more`}function Te(e){return(e??[]).map(e=>{let t=[e.toolMode===`search`?`search mode`:e.toolMode===`code`?`code mode`:`all tools`,N(e.tools,`tool`),e.tokensCounted?`≈${e.toolTokens.toLocaleString(`en-US`)} tokens`:`counting tokens…`];return e.profile&&(t.push(e.profile.servers.length>0?`servers: ${e.profile.servers.join(`, `)}`:`no servers`),e.profile.project?t.push(`for clients whose roots name this folder`):t.push(e.profile.hasToken?`needs its token`:`no token`)),{path:e.path,title:e.profile?.project?`Project ${e.profile.project}`:e.profile?`Profile ${e.profile.name}`:`All servers`,detail:t.join(` · `)}})}function Ee(e){return e.length===0?v:g`<ul class="endpoints" data-testid="endpoints" aria-label="Endpoints">
    ${e.map(e=>g`<li>
        <code>${e.path}</code> <strong>${e.title}</strong>
        <span class="muted">${e.detail}</span>
      </li>`)}
  </ul>`}function De(e){let t=e.sandbox;if(!t||t.mechanism===`not applicable`)return null;if(t.profile===`off`)return{level:`off`,symbol:`⚠`,label:`Unsandboxed`,hint:`This server runs with all of your rights (sandbox: false or settings.sandbox is off)`};let n=t.droppedEnv.length>0?` Not passed on: ${t.droppedEnv.join(`, `)}.`:``,r=t.lastDenial?` Last refusal: ${t.lastDenial}.`:``;return t.enforced?{level:`contained`,symbol:`🛡`,label:t.profile===`custom`?`Sandboxed (custom)`:`Sandboxed`,hint:`${t.profile} profile: ${t.mechanism}.${n}${r}`}:{level:`partial`,symbol:`⚠`,label:`Partly sandboxed`,hint:`${t.profile} profile, not fully enforced: ${t.missing??`unknown reason`}.${n}${r}`}}var Oe={disabled:[`Disabled`,`Switched off in the config; clients do not see its tools`],idle:[`Idle`,`Not running; starts when a client needs it`],starting:[`Starting`,`Starting and listing its capabilities`],ready:[`Running`,`Connected and serving`],sleeping:[`Sleeping`,`Stopped after being idle; starts again when needed`],failed:[`Failed`,`Could not start or stopped working`],authRequired:[`Login needed`,`This server needs you to log in before it can be used`]},ke={healthy:[`Healthy`,`●`],degraded:[`Degraded`,`▲`],down:[`Down`,`✕`],unknown:[`Not checked yet`,`○`],disabled:[`Off`,`–`]},Ae={startup:`at start-up`,firstUse:`on first use`,ttl:`after the cache expired`,notification:`after the server announced a change`,poll:`by a periodic check`,manual:`by a manual refresh`,reload:`after a config reload`};function je(e){return Oe[e]??[e,``]}function Me(e){return e?Ae[e]??`(${e})`:``}function Ne(e){return!e.enabled||e.state===`disabled`?`disabled`:e.health?e.health:e.state===`failed`||e.state===`authRequired`?`down`:e.stale||e.consecutiveFailures>0||e.breaker?.state===`open`?`degraded`:e.listedAt?`healthy`:`unknown`}function Pe(e){let t=[`down`,`degraded`,`unknown`,`healthy`],n=new Set(e.map(Ne).filter(e=>e!==`disabled`));return n.size===0?`disabled`:n.has(`down`)&&(n.has(`healthy`)||n.has(`degraded`)||n.has(`unknown`))?`degraded`:t.find(e=>n.has(e))??`unknown`}function Fe(e,t){let n=A(e.listedAt),r=[];if(n===null){let t;return t=e.enabled?e.state===`starting`?`Starting, not listed yet`:e.state===`failed`?`Never listed: the server did not start`:e.state===`authRequired`?`Not listed: log in first`:`Not listed yet: starts on first use`:`Not listed (disabled)`,{text:t,detail:``}}let i=[],a=Me(e.refreshTrigger);if(i.push(`Listed ${M(n,t)}${a?` ${a}`:``}`),r.push(`Listed at ${P(n)}`),e.stale){let t=e.consecutiveFailures;i.push(t>1?`stale: the last ${t} refreshes failed`:`stale: the last refresh failed`)}let o=A(e.ttlExpiresAt);o!==null&&(o>t?i.push(`fresh for ${j(o-t)}`):i.push(`cache expired ${M(o,t)}, refreshed on next use`),r.push(`cache expires at ${P(o)}`));let s=A(e.nextPollAt);return s!==null&&e.enabled&&(i.push(`next check ${Ce(s,t)}`),r.push(`next check at ${P(s)}`)),{text:i.join(` · `),detail:r.join(`, `)}}function Ie(e,t){let n=e.breaker;if(!n||n.state===`closed`)return null;if(n.state===`halfOpen`)return`Trying again after repeated failures`;let r=A(n.retryAt);return r===null||r<=t?`Paused after repeated failures; tries again when next needed`:`Paused after repeated failures; next try ${Ce(r,t)}`}var Le=240;function Re(e){let t=e.indexOf(`; stderr: `),n=e;if(t>=0){let r=e.slice(t+10).split(` | `).map(e=>e.trim()).filter(Boolean),i=r[r.length-1];n=`${e.slice(0,t)}${i?`. Its last output: “${i}”`:``}`}return n.length>Le?`${n.slice(0,239)}…`:n}function ze(e){if(!e.lastError)return null;let t=e.consecutiveFailures,n=Re(e.lastError);return t>1?`${n} (failed ${t} times in a row)`:n}function Be(e){if(!e)return null;switch(e.kind){case`invalid`:{let t=e.path??`the config file`;return`The config file has an error, so Switchboard keeps running the last good configuration. ${e.line?`${t}:${e.line}:${e.column??1} (line ${e.line}, column ${e.column??1})`:t}: ${e.message}`}case`read`:return`Switchboard cannot read its config file ${e.path??``}: ${e.message}`;case`env`:return`The environment variable ${e.name??``}=${JSON.stringify(e.value??``)} is not valid: ${e.message}`;default:return`Config problem: ${e.message}`}}function Ve(e){let t=[...e.added.map(e=>`+${e}`),...e.removed.map(e=>`−${e}`),...e.modified.map(e=>`~${e}`)],n=e.summary??(t.length>0?we(t,6):`lists changed`);return`Last change ${e.when}${e.how?` (found ${e.how})`:``}: ${n}`}function He(e){return[e.toolCount,e.promptCount,e.resourceCount,e.resourceTemplateCount].join(`/`)}var Ue=class{seen=new Map;changes=new Map;observe(e,t){let n=new Set;for(let r of e.servers){n.add(r.id);let e=this.seen.get(r.id),i=He(r);if(!Object.hasOwn(r,`lastChange`)&&r.enabled&&r.listedAt!==null&&e&&e.enabled&&e.listedAt!==null&&e.counts!==i){let n=e.tools===r.toolCount?`prompts or resources changed`:`tools ${e.tools} → ${r.toolCount}`;this.changes.set(r.id,{at:t,summary:n})}this.seen.set(r.id,{counts:i,tools:r.toolCount,listedAt:r.listedAt,enabled:r.enabled})}for(let e of[...this.seen.keys()])n.has(e)||(this.seen.delete(e),this.changes.delete(e))}changeFor(e){return this.changes.get(e)??null}};function We(e,t,n){let r=e.lastChange,i=A(r?.at);if(r&&i!==null)return{at:i,when:M(i,t),how:Me(r.trigger),added:r.added??[],removed:r.removed??[],modified:r.modified??[],summary:null};let a=n?.changeFor(e.id);return a?{at:a.at,when:M(a.at,t),how:``,added:[],removed:[],modified:[],summary:a.summary}:null}function Ge(e,t,n){let r=Ne(e),[i,a]=ke[r],[o,s]=je(e.state),c=e.listedAt!==null,{text:l,detail:u}=Fe(e,t),d=We(e,t,n),f=c?N(e.toolCount,`tool`):`—`,p=c?`${N(e.promptCount,`prompt`)}, ${N(e.resourceCount+e.resourceTemplateCount,`resource`)}`:``,m=e.serverName?[e.serverName,e.serverVersion].filter(Boolean).join(` `):null;return{id:e.id,serverInfo:m,transport:e.transport,enabled:e.enabled,state:e.state,stateLabel:o,stateHint:s,health:r,healthLabel:i,healthSymbol:a,listed:c,countsLabel:f,toolTokens:e.toolTokens,otherCountsLabel:p,fullError:e.enabled?e.lastError:null,staleness:l,stalenessDetail:u,stale:e.stale,lastChange:d,lastChangeLabel:d?Ve(d):null,recentlyChanged:d!==null&&t-d.at<6e5,breaker:Ie(e,t),error:e.enabled?ze(e):null,unverified:e.unverified===!0,notes:e.notes??[],canLogin:e.enabled&&(e.state===`authRequired`||e.auth?.required===!0&&!e.auth.loggedIn),loginPending:e.auth?.loginPending===!0,canLogout:e.auth?.loggedIn===!0,authNote:e.enabled?e.auth?.message??null:null,sandbox:De(e)}}function Ke(e,t,n){let r=e.totals,i=e.servers.map(e=>Ge(e,t,n)),a=new Map;for(let e of i)a.set(e.health,(a.get(e.health)??0)+1);let o=[`healthy`,`degraded`,`down`,`unknown`,`disabled`].filter(e=>a.has(e)).map(e=>`${a.get(e)} ${ke[e][0].toLowerCase()}`).join(` · `);return{endpoint:e.endpoint,endpoints:Te(e.endpoints),version:e.version,totalsLabel:[N(r.servers,`server`),N(r.tools,`tool`)+(r.builtinTools?` (${r.builtinTools} built-in)`:``),N(r.prompts,`prompt`),N(r.resources,`resource`)].join(` · `),healthSummary:o,overall:Pe(e.servers),configError:Be(e.configError),reloadNotes:e.lastReload?.errors??[],servers:i}}var qe={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Je=e=>(...t)=>({_$litDirective$:e,values:t}),Ye=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,n){this._$Ct=e,this._$AM=t,this._$Ci=n}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}},{I:Xe}=me,Ze=e=>e,Qe=()=>document.createComment(``),F=(e,t,n)=>{let r=e._$AA.parentNode,i=t===void 0?e._$AB:t._$AA;if(n===void 0)n=new Xe(r.insertBefore(Qe(),i),r.insertBefore(Qe(),i),e,e.options);else{let t=n._$AB.nextSibling,a=n._$AM,o=a!==e;if(o){let t;n._$AQ?.(e),n._$AM=e,n._$AP!==void 0&&(t=e._$AU)!==a._$AU&&n._$AP(t)}if(t!==i||o){let e=n._$AA;for(;e!==t;){let t=Ze(e).nextSibling;Ze(r).insertBefore(e,i),e=t}}}return n},I=(e,t,n=e)=>(e._$AI(t,n),e),$e={},et=(e,t=$e)=>e._$AH=t,tt=e=>e._$AH,nt=e=>{e._$AR(),e._$AA.remove()},rt=(e,t,n)=>{let r=new Map;for(let i=t;i<=n;i++)r.set(e[i],i);return r},it=Je(class extends Ye{constructor(e){if(super(e),e.type!==qe.CHILD)throw Error(`repeat() can only be used in text expressions`)}dt(e,t,n){let r;n===void 0?n=t:t!==void 0&&(r=t);let i=[],a=[],o=0;for(let t of e)i[o]=r?r(t,o):o,a[o]=n(t,o),o++;return{values:a,keys:i}}render(e,t,n){return this.dt(e,t,n).values}update(e,[t,n,r]){let i=tt(e),{values:a,keys:o}=this.dt(t,n,r);if(!Array.isArray(i))return this.ut=o,a;let s=this.ut??=[],c=[],l,u,d=0,f=i.length-1,p=0,m=a.length-1;for(;d<=f&&p<=m;)if(i[d]===null)d++;else if(i[f]===null)f--;else if(s[d]===o[p])c[p]=I(i[d],a[p]),d++,p++;else if(s[f]===o[m])c[m]=I(i[f],a[m]),f--,m--;else if(s[d]===o[m])c[m]=I(i[d],a[m]),F(e,c[m+1],i[d]),d++,m--;else if(s[f]===o[p])c[p]=I(i[f],a[p]),F(e,i[d],i[f]),f--,p++;else if(l===void 0&&(l=rt(o,p,m),u=rt(s,d,f)),l.has(s[d])){if(l.has(s[f])){let t=u.get(o[p]),n=t===void 0?null:i[t];if(n===null){let t=F(e,i[d]);I(t,a[p]),c[p]=t}else c[p]=I(n,a[p]),F(e,i[d],n),i[t]=null;p++}else nt(i[f]),f--}else nt(i[d]),d++;for(;p<=m;){let t=F(e,c[m+1]);I(t,a[p]),c[p++]=t}for(;d<=f;){let e=i[d++];e!==null&&nt(e)}return this.ut=o,et(e,c),_}}),at=new Set([`command`,`args`,`env`,`url`,`headers`,`enabled`]);function ot(){return{mode:`add`,id:``,transport:`stdio`,command:``,args:``,env:``,url:``,headers:``,enabled:!0,extra:{},error:null,busy:!1,confirmRemove:!1}}function L(e){return typeof e==`string`?e:e==null?``:JSON.stringify(e)}function st(e,t){return!e||typeof e!=`object`||Array.isArray(e)?``:Object.entries(e).map(([e,n])=>`${e}${t}${L(n)}`).join(`
`)}function ct(e,t){let n={};for(let[e,r]of Object.entries(t))at.has(e)||(n[e]=r);let r=Array.isArray(t.args)?t.args.map(L).join(`
`):``;return{...ot(),mode:`edit`,id:e,transport:typeof t.url==`string`?`http`:`stdio`,command:L(t.command),args:r,env:st(t.env,`=`),url:L(t.url),headers:st(t.headers,`: `),enabled:t.enabled!==!1,extra:n}}function lt(e){let t=e.trim();if(t.startsWith(`{`)&&t.endsWith(`}`))try{return JSON.parse(t)}catch{return e}return e}function ut(e,t,n,r){let i={},a=t.split(/\r?\n/);for(let t=0;t<a.length;t++){let o=a[t]??``;if(o.trim()===``)continue;let s=o.indexOf(n),c=s>0?o.slice(0,s).trim():``;if(!c)return{ok:!1,error:`${e}, line ${t+1}: expected ${r}`};i[c]=lt(o.slice(s+n.length).trim())}return{ok:!0,value:i}}function dt(e){let t=e.id.trim();if(!t)return{ok:!1,error:`Give the server a name.`};let n={};if(e.transport===`stdio`){if(!e.command.trim())return{ok:!1,error:`Give the command that starts the server.`};n.command=e.command.trim();let t=e.args.split(/\r?\n/).filter(e=>e.trim()!==``);t.length>0&&(n.args=t);let r=ut(`Environment`,e.env,`=`,`NAME=value`);if(!r.ok)return r;Object.keys(r.value).length>0&&(n.env=r.value)}else{if(!e.url.trim())return{ok:!1,error:`Give the server's URL.`};n.url=e.url.trim();let t=ut(`Headers`,e.headers,`:`,`Name: value`);if(!t.ok)return t;Object.keys(t.value).length>0&&(n.headers=t.value)}for(let[t,r]of Object.entries(e.extra))(e.transport!==`http`||t!==`cwd`)&&(n[t]=r);return e.enabled||(n.enabled=!1),{ok:!0,id:t,definition:n}}function ft(){return{query:``,searching:!1,answer:null,error:null,picked:null,id:``,values:{},installing:!1}}var pt={search:e=>w(`GET`,`registry?search=${encodeURIComponent(e)}`,`search the MCP Registry`),install:e=>w(`POST`,`registry/install`,`add ${e.name}`,e)};function mt(e){let t=(e.split(`/`).pop()??e).replace(/[^A-Za-z0-9_-]/g,`-`).slice(0,40);return t===``?`server`:t}function ht(e){let t=e.picked;if(!t)throw Error(`nothing picked`);let n=t=>Object.fromEntries(t.filter(t=>(e.values[t.name]??``)!==``).map(t=>[t.name,e.values[t.name]??``])),r=e.id.trim();return{name:t.name,...r!==``&&r!==mt(t.name)?{id:r}:{},env:n(t.env),headers:n(t.headers)}}function gt(e,t,n){return g`<label class="field">
    <span
      >${e.name}${e.required?` (required)`:``}${e.secret?` — kept in the keyring`:``}</span
    >
    <input
      name=${`registry-${e.name}`}
      type=${e.secret?`password`:`text`}
      autocomplete="off"
      placeholder=${e.default??``}
      .value=${t}
      @input=${t=>n.registryValue(e.name,t.target.value)}
    />
    ${e.description?g`<small class="muted">${e.description}</small>`:v}
  </label>`}function _t(e,t){let n=e.picked;if(n){let r=[...n.env,...n.headers];return g`<section class="registry" data-testid="registry-install">
      <h3>${n.title??n.name} <span class="muted">${n.version}</span></h3>
      <p class="muted">${n.name} · ${n.transports.join(`, `)}</p>
      ${n.description?g`<p>${n.description}</p>`:v}
      <label class="field">
        <span>Name</span>
        <input
          name="registry-id"
          type="text"
          placeholder=${mt(n.name)}
          .value=${e.id}
          @input=${e=>t.registryId(e.target.value)}
        />
      </label>
      ${r.map(n=>gt(n,e.values[n.name]??``,t))}
      <p class="muted">
        It is fetched at this exact version and its digest checked. Its first start runs without these values,
        offline and sandboxed, only to list its tools; they stay held until you approve them.
      </p>
      ${e.error?g`<div class="banner error" role="alert" data-testid="registry-error">${e.error}</div>`:v}
      <div class="dialog-actions">
        <button type="button" @click=${()=>t.registryPick(null)}>Back</button>
        <span class="spacer"></span>
        <button
          type="button"
          class="primary"
          data-action="registry-install"
          ?disabled=${e.installing}
          @click=${t.registryInstall}
        >
          ${e.installing?`Fetching and checking…`:`Install`}
        </button>
      </div>
    </section>`}let r=e.answer?.servers??[];return g`<section class="registry" data-testid="registry-search">
    <div class="registry-search">
      <label class="field">
        <span>Find it in the MCP Registry</span>
        <input
          name="registry-query"
          type="search"
          placeholder="memory, github, time…"
          .value=${e.query}
          @input=${e=>t.registryQuery(e.target.value)}
          @keydown=${e=>{e.key===`Enter`&&(e.preventDefault(),t.registrySearch())}}
        />
      </label>
      <button type="button" data-action="registry-search" ?disabled=${e.searching} @click=${t.registrySearch}>
        ${e.searching?`Searching…`:`Search`}
      </button>
    </div>
    ${e.error?g`<div class="banner error" role="alert" data-testid="registry-error">${e.error}</div>`:v}
    ${e.answer?.staleSince?g`<p class="muted">The registry cannot be reached; this answer is from ${e.answer.staleSince}.</p>`:v}
    ${e.answer&&r.length===0?g`<p class="muted">Nothing matches “${e.query}”.</p>`:v}
    ${r.length>0?g`<ul class="registry-results">
          ${r.map(e=>g`<li data-testid="registry-result">
              <b>${e.title??e.name}</b> <span class="muted">${e.version} · ${e.transports.join(`, `)}</span>
              ${e.description?g`<div class="muted">${e.description}</div>`:v}
              ${e.installed?g`<span class="muted">installed as ${e.installedAs??`?`}</span>`:g`<button type="button" class="small" data-action="registry-pick" @click=${()=>t.registryPick(e)}>
                    Add…
                  </button>`}
            </li>`)}
        </ul>`:v}
  </section>`}var vt=encodeURIComponent,R={offer:()=>w(`GET`,`import`,`look for servers in your AI clients`),importIds:e=>w(`POST`,`import`,`import the servers`,{ids:e}),definition:e=>w(`GET`,`servers/${vt(e)}/config`,`read ${e}'s settings`),put:(e,t)=>w(`PUT`,`servers/${vt(e)}`,`save ${e}`,t),remove:e=>w(`DELETE`,`servers/${vt(e)}`,`remove ${e}`)};function z(e){return e instanceof Error?e.message:String(e)}function yt(){let e=document.getElementById(`server-form`);return e instanceof HTMLDialogElement?e:null}function bt(e){let t={offer:null,offerError:null,importing:!1,form:null,registry:ft()},n=!1,r=async()=>{try{t.offer=await R.offer(),t.offerError=null}catch(e){t.offer=null,t.offerError=z(e)}e.update()},i=n=>{t.form=n,e.update();let r=yt();r&&!r.open&&r.showModal(),queueMicrotask(()=>r?.querySelector(`input:not([readonly])`)?.focus())},a={importAll(){let n=t.offer?.candidates.map(e=>e.id)??[];t.importing||n.length===0||(t.importing=!0,e.update(),R.importIds(n).then(t=>(e.notify(`ok`,`Imported ${t.added.join(`, `)}.`),r()),t=>e.notify(`error`,z(t))).finally(()=>{t.importing=!1,e.update()}))},openAdd(){t.registry=ft(),i(ot())},registryQuery(n){t.registry={...t.registry,query:n},e.update()},registrySearch(){let n=t.registry;n.searching||(t.registry={...n,searching:!0,error:null},e.update(),pt.search(n.query).then(n=>{t.registry={...t.registry,searching:!1,answer:n},e.update()},n=>{t.registry={...t.registry,searching:!1,answer:null,error:z(n)},e.update()}))},registryPick(n){t.registry={...t.registry,picked:n,id:``,values:{},error:null},e.update()},registryValue(n,r){t.registry={...t.registry,values:{...t.registry.values,[n]:r}},e.update()},registryId(n){t.registry={...t.registry,id:n},e.update()},registryInstall(){let n=t.registry;if(!n.picked||n.installing)return;let r=ht(n);t.registry={...n,installing:!0,error:null},e.update(),pt.install(r).then(n=>{e.notify(`ok`,`${n.id} added; its tools are held until you approve them.`),t.registry=ft(),a.closeForm()},n=>{t.registry={...t.registry,installing:!1,error:z(n)},e.update()})},openEdit(t){R.definition(t).then(e=>i(ct(t,e.definition)),t=>e.notify(`error`,z(t)))},edit(n){t.form&&(t.form={...t.form,...n,confirmRemove:!1},e.update())},save(){let n=t.form;if(!n||n.busy)return;let r=dt(n);r.ok?(t.form={...n,busy:!0,error:null},e.update(),R.put(r.id,r.definition).then(()=>{e.notify(`ok`,`${r.id} saved.`),a.closeForm()},n=>{t.form&&={...t.form,busy:!1,error:z(n)},e.update()})):(t.form={...n,error:r.error},e.update())},remove(){let n=t.form;n&&n.mode===`edit`&&!n.busy&&(n.confirmRemove?(t.form={...n,busy:!0,error:null},e.update(),R.remove(n.id).then(()=>{e.notify(`ok`,`${n.id} removed.`),a.closeForm()},n=>{t.form&&={...t.form,busy:!1,confirmRemove:!1,error:z(n)},e.update()})):(t.form={...n,confirmRemove:!0},e.update()))},closeForm(){let n=yt();n?.open&&n.close(),t.form&&(t.form=null,e.update())}};return{state:t,actions:a,observe(e){let t=e.servers.length===0;t&&!n&&r(),n=t}}}function xt(e,t){let n=e.offer,r=n?[...new Set(n.candidates.map(e=>e.client??`a config file`))]:[];return g`<div class="first-run" data-testid="first-run">
    <p class="empty">No servers yet.</p>
    ${n&&n.candidates.length>0?g`<div class="import-offer" data-testid="import-offer">
          <p>
            Import ${n.candidates.length===1?`1 server`:`${n.candidates.length} servers`} found in
            ${r.join(`, `)}:
          </p>
          <ul>
            ${n.candidates.map(e=>g`<li data-candidate=${e.id}>
                <b>${e.id}</b> <span class="muted">${e.client??e.file}</span>
                ${e.notes.length>0?g`<span class="muted">(${e.notes.join(`; `)})</span>`:v}
              </li>`)}
          </ul>
          <button type="button" class="primary" data-action="import" ?disabled=${e.importing} @click=${t.importAll}>
            ${e.importing?`Importing…`:`Import ${n.candidates.length===1?`it`:`them`}`}
          </button>
        </div>`:n?g`<p class="muted" data-testid="import-none">
            No servers to import from your AI clients${n.lookedAt.length>0?` (looked at ${n.lookedAt.join(`; `)})`:``}.
          </p>`:v}
    ${e.offerError?g`<p class="muted" data-testid="import-error">${e.offerError}</p>`:v}
    ${n&&n.problems.length>0?g`<p class="muted">Could not read: ${n.problems.join(`; `)}</p>`:v}
    <button type="button" data-action="add-server" @click=${t.openAdd}>Add a server</button>
  </div>`}function St(e){return g`<div class="servers-toolbar">
    <button type="button" class="small" data-action="add-server" @click=${e.openAdd}>Add a server</button>
  </div>`}function Ct(e,t){return g`<button type="button" class="small" aria-label=${`Edit ${e}`} data-action="edit" @click=${()=>t.openEdit(e)}>
    Edit
  </button>`}function B(e,t,n,r,i={}){let a=e=>r(e.target.value);return g`<label class="field">
    <span>${e}</span>
    ${i.multiline?g`<textarea name=${t} rows="3" placeholder=${i.placeholder??``} .value=${n} @input=${a}></textarea>`:g`<input
          name=${t}
          type="text"
          placeholder=${i.placeholder??``}
          ?readonly=${i.readonly??!1}
          .value=${n}
          @input=${a}
        />`}
  </label>`}function wt(e,t){let n=e.form;return g`<dialog id="server-form" aria-labelledby="server-form-h" @close=${t.closeForm}>
    ${n?g`<form
          method="dialog"
          @submit=${e=>{e.preventDefault(),t.save()}}
        >
          <h2 id="server-form-h">${n.mode===`add`?`Add a server`:`Edit ${n.id}`}</h2>
          ${n.mode===`add`?_t(e.registry,t):v}
          ${n.mode===`add`?g`<p class="muted">Or write its definition:</p>`:v}
          ${B(`Name`,`id`,n.id,e=>t.edit({id:e}),{readonly:n.mode===`edit`,placeholder:`github`})}
          <fieldset class="transport">
            <legend>Runs as</legend>
            <label
              ><input
                type="radio"
                name="transport"
                value="stdio"
                .checked=${n.transport===`stdio`}
                @change=${()=>t.edit({transport:`stdio`})}
              />
              A command on this computer</label
            >
            <label
              ><input
                type="radio"
                name="transport"
                value="http"
                .checked=${n.transport===`http`}
                @change=${()=>t.edit({transport:`http`})}
              />
              A remote URL</label
            >
          </fieldset>
          ${n.transport===`stdio`?g`${B(`Command`,`command`,n.command,e=>t.edit({command:e}),{placeholder:`npx`})}
              ${B(`Arguments (one per line)`,`args`,n.args,e=>t.edit({args:e}),{multiline:!0})}
              ${B(`Environment (NAME=value, one per line)`,`env`,n.env,e=>t.edit({env:e}),{multiline:!0})}`:g`${B(`URL`,`url`,n.url,e=>t.edit({url:e}),{placeholder:`https://…/mcp`})}
              ${B(`Headers (Name: value, one per line)`,`headers`,n.headers,e=>t.edit({headers:e}),{multiline:!0})}`}
          <label class="check"
            ><input
              type="checkbox"
              name="enabled"
              .checked=${n.enabled}
              @change=${e=>t.edit({enabled:e.target.checked})}
            />
            Enabled</label
          >
          ${n.mode===`edit`?g`<p class="muted">Values shown as *** are kept as they are unless you type new ones.</p>`:v}
          ${n.error?g`<div class="banner error" role="alert" data-testid="form-error">${n.error}</div>`:v}
          <div class="dialog-actions">
            ${n.mode===`edit`?g`<button type="button" class="danger" data-action="remove" ?disabled=${n.busy} @click=${t.remove}>
                  ${n.confirmRemove?`Really remove ${n.id}?`:`Remove`}
                </button>`:v}
            <span class="spacer"></span>
            <button type="button" @click=${t.closeForm}>Cancel</button>
            <button type="submit" class="primary" data-action="save" ?disabled=${n.busy}>${n.busy?`Saving…`:`Save`}</button>
          </div>
        </form>`:v}
  </dialog>`}function Tt(e){let t=e=>{if(Array.isArray(e))return e.map(t);if(e&&typeof e==`object`){let n={};for(let r of Object.keys(e).sort())n[r]=t(e[r]);return n}return e};return JSON.stringify(t(e),null,2)??`null`}var Et=25e4;function Dt(e,t){let n=e.split(`
`),r=t.split(`
`);if(n.length*r.length>Et)return[...n.map(e=>({kind:`removed`,text:e})),...r.map(e=>({kind:`added`,text:e}))];let i=Array.from({length:n.length+1},()=>Array(r.length+1).fill(0));for(let e=n.length-1;e>=0;e--)for(let t=r.length-1;t>=0;t--)i[e][t]=n[e]===r[t]?i[e+1][t+1]+1:Math.max(i[e+1][t],i[e][t+1]);let a=[],o=0,s=0;for(;o<n.length&&s<r.length;)n[o]===r[s]?(a.push({kind:`same`,text:n[o]}),o++,s++):i[o+1][s]>=i[o][s+1]?(a.push({kind:`removed`,text:n[o]}),o++):(a.push({kind:`added`,text:r[s]}),s++);for(;o<n.length;)a.push({kind:`removed`,text:n[o++]});for(;s<r.length;)a.push({kind:`added`,text:r[s++]});return a}function Ot(e){return Dt(Tt(e.approved),Tt(e.current))}function kt(e){let t=e.findings??[],n=t.length===1?`1 finding`:`${t.length} findings`;if(e.change===`first listing`)return`first listing, ${n} of text aimed at the model`;let r=`${e.change} changed since it was approved`;return t.length>0?`${r}, ${n}`:r}function At(e){return e.rule.replace(/-/g,` `)}function jt(e,t,n=new Map){let r=new Map;for(let i of e.servers){let e=i.heldTools??[],a=i.changedTools??[],o=i.newTools??[];e.length+a.length+o.length!==0&&r.set(i.id,{held:e,changed:a,newTools:o,defs:t.get(i.id)??null,defsError:n.get(i.id)??null})}return r}function Mt(e){return[...e.held,...e.changed].map(e=>`${e.name}@${e.since}:${e.change}:${e.hash}`).join(`|`)}function Nt(e){return typeof e==`string`?e:e.name}function Pt(e,t){let n=t?.hash||e.hash;return n?{name:e.name,hash:n}:e.name}var Ft=encodeURIComponent,It={held:e=>w(`GET`,`servers/${Ft(e)}/held`,`read the changed tools of ${e}`),approve:(e,t)=>w(`POST`,`servers/${Ft(e)}/approve`,`approve ${t?t.map(Nt).join(`, `):`the tools`} of ${e}`,t?{tools:t}:{})};function Lt(e){let t={same:` `,removed:`−`,added:`+`};return g`<pre class="diff" data-testid="held-diff" aria-label=${`Approved and current definition of ${e.name}`}>${Ot(e).map(e=>g`<span class="diff-${e.kind}">${t[e.kind]} ${e.text}\n</span>`)}</pre>`}function Rt(e){let t=e.findings??[];return t.length===0?v:g`<ul class="findings" data-testid="findings" aria-label=${`Findings in ${e.name}`}>
    ${t.map(e=>g`<li class="finding" data-rule=${e.rule}>
        <span class="finding-rule">${At(e)}</span> <mark class="finding-excerpt">${e.excerpt}</mark>
      </li>`)}
  </ul>`}function zt(e){return g`<pre class="diff" data-testid="held-definition" aria-label=${`Listed definition of ${e.name}`}>${Tt(e.current)}</pre>`}function Bt(e,t,n,r,i,a){let o=r.defs?.find(e=>e.name===t.name)??null,s=`approve:${e}:${t.name}`;return g`<details class="held-tool" data-tool=${t.name} ?open=${n}>
    <summary>
      <b>${t.name}</b>: ${kt(t)}
      ${n?g`<span class="badge held-badge">Held</span>`:g`<span class="badge">${t.change===`first listing`?`Flagged`:`Changed`}</span>`}
      <time class="muted" datetime=${t.since}>${t.since}</time>
    </summary>
    ${Rt(t)}
    ${o?o.approved===null?zt(o):Lt(o):r.defsError?g`<p class="error-text">${r.defsError}</p>`:g`<p class="muted">Loading the definitions…</p>`}
    <button
      type="button"
      class="small primary"
      data-action="approve"
      aria-label=${`Approve ${t.name} of ${e}`}
      ?disabled=${i.has(s)}
      @click=${()=>a(e,[Pt(t,o)])}
    >
      ${i.has(s)?`Approving…`:`Approve`}
    </button>
  </details>`}function Vt(e,t,n,r){if(!t)return v;let i=t.held.length;return g`<div class="held" data-testid="held">
    ${i>0?g`<div class="held-summary">
          ${i===1?`1 tool is`:`${i} tools are`} held: ${i===1?`its`:`their`} definition changed since
          you approved it, or scanning found text aimed at the model. Clients do not see ${i===1?`it`:`them`} until
          you approve.
        </div>`:v}
    ${t.held.map(i=>Bt(e,i,!0,t,n,r))}
    ${t.changed.map(i=>Bt(e,i,!1,t,n,r))}
    ${t.newTools.length>0?g`<div class="new-tools" data-testid="new-tools">
          New tools: ${t.newTools.join(`, `)}
          <button
            type="button"
            class="small"
            aria-label=${`Approve the new tools of ${e}`}
            ?disabled=${n.has(`approve:${e}:${t.newTools.join(`,`)}`)}
            @click=${()=>r(e,t.newTools)}
          >
            Mark as seen
          </button>
        </div>`:v}
  </div>`}function Ht(){return{calls:[],dropped:0,error:null,loaded:!1}}function Ut(e){return e<10?`${e.toFixed(1)} ms`:e<1e3?`${Math.round(e)} ms`:`${(e/1e3).toFixed(1)} s`}function Wt(e){let t=e=>e.name===`switchboard__run_code`&&!!e.run,n=new Set(e.filter(t).map(e=>e.run)),r=new Map;for(let i of e)i.run&&!t(i)&&n.has(i.run)&&r.set(i.run,[...r.get(i.run)??[],i]);let i=[];for(let a of e){if(a.run&&!t(a)){n.has(a.run)||i.push({entry:a,inner:!0,innerCalls:0});continue}let e=t(a)&&a.run?[...r.get(a.run)??[]].sort((e,t)=>e.seq-t.seq):[];i.push({entry:a,inner:!1,innerCalls:e.length});for(let t of e)i.push({entry:t,inner:!0,innerCalls:0})}return i}function Gt(e,t){return Wt(e).map(({entry:e,inner:n,innerCalls:r})=>{let i=A(e.time);return{seq:e.seq,when:i===null?e.time:M(i,t),at:e.time,client:e.client??`—`,server:e.server??`—`,name:e.name,duration:Ut(e.durationMs),outcome:e.outcome,error:e.error,inner:n,innerCalls:r}})}function Kt(e,t){let n=new Set(e.calls.map(e=>e.seq));return{calls:[...t.calls.filter(e=>!n.has(e.seq)),...e.calls].slice(0,100),dropped:t.dropped,error:null,loaded:!0}}function qt(e,t){let n=Gt(e.calls,t);return g`<section class="activity" aria-labelledby="activity-h" data-testid="activity">
    <h2 id="activity-h">Activity</h2>
    ${e.error?g`<p class="muted" data-testid="activity-error">${e.error}</p>`:e.loaded?n.length===0?g`<p class="muted" data-testid="activity-empty">No calls yet. Tool calls, prompts and resource reads through Switchboard show up here.</p>`:g`<div class="table-wrap">
              <table class="servers activity-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Client</th>
                    <th scope="col">Server</th>
                    <th scope="col">Tool</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  ${n.map(e=>g`<tr
                      data-seq=${e.seq}
                      class=${`outcome-${e.outcome}${e.inner?` inner-call`:``}`}
                      data-testid=${e.inner?`inner-call`:e.innerCalls>0?`code-run`:v}
                    >
                      <td><time datetime=${e.at} title=${e.at}>${e.when}</time></td>
                      <td>${e.client}</td>
                      <td>${e.server}</td>
                      <td>
                        ${e.inner?g`<span class="inner-mark" aria-label="called by the script above">↳ </span>`:v}<code
                          >${e.name}</code
                        >${e.innerCalls>0?g` <span class="muted">(${e.innerCalls} ${e.innerCalls===1?`call`:`calls`})</span>`:v}
                      </td>
                      <td>${e.duration}</td>
                      <td data-testid="outcome">
                        <span class=${`pill outcome-${e.outcome}`}>${e.outcome}</span>
                        ${e.error?g`<div class="error-text">${e.error}</div>`:v}
                      </td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:g`<p class="muted">Loading…</p>`}
    ${e.dropped>0?g`<p class="muted">${e.dropped} calls were not recorded because the recorder was behind.</p>`:v}
  </section>`}function Jt(e,t){if(e===401||e===403)return"Sign in to see what clients called: open the dashboard with `switchboard dashboard` (or from the Switchboard app).";if(e===null)return`Switchboard is not answering.`;let n=t&&typeof t==`object`&&`error`in t?String(t.error):null;return n?`Could not read the activity: ${n}`:`Could not read the activity (HTTP ${e}).`}function Yt(e,t,n=3e3){let r=null,i=!1,a=async()=>{r=null;let o=e().calls[0]?.seq,s=o===void 0?`limit=100`:`limit=100&after=${o}`,c=null,l=null;try{let n=await fetch(`api/v1/activity?${s}`,{headers:{Accept:`application/json`},cache:`no-store`});c=n.status,l=await n.json().catch(()=>null),n.ok&&l&&typeof l==`object`&&Array.isArray(l.calls)?t(Kt(e(),l)):t({...e(),error:Jt(c,l),loaded:!0})}catch{t({...e(),error:Jt(null,null),loaded:!0})}i||(r=setTimeout(()=>void a(),n))};return a(),()=>{i=!0,r&&clearTimeout(r)}}var Xt=/^[A-Za-z0-9_.-]{1,64}$/;function Zt(e){let t=e.toolOverride,n=t?.arguments;return{name:t?.name??``,description:t?.description??``,defaults:n&&Object.keys(n).length>0?JSON.stringify(n):``,hidden:[...t?.hideArguments??[]]}}function Qt(e,t){let n=e.name.trim();if(n!==``&&!Xt.test(n))return{ok:!1,error:`The name "${n}" may only have letters, digits, "_", "-" and "." (1 to 64 of them).`};let r={};if(e.defaults.trim()!==``){let t;try{t=JSON.parse(e.defaults)}catch{return{ok:!1,error:`The default values must be a JSON object, e.g. {"limit": 5}.`}}if(typeof t!=`object`||!t||Array.isArray(t))return{ok:!1,error:`The default values must be a JSON object, e.g. {"limit": 5}.`};r=t}let i=new Set(t.arguments),a=Object.keys(r).find(e=>i.size>0&&!i.has(e));if(a!==void 0)return{ok:!1,error:`"${a}" is no argument of ${t.name} (its arguments: ${t.arguments.join(`, `)}).`};let o=[...new Set(e.hidden)].sort(),s=o.find(e=>!(e in r));if(s!==void 0)return{ok:!1,error:`"${s}" is hidden but has no default value: a hidden argument always takes its default.`};let c={};return n!==``&&(c.name=n),e.description.trim()!==``&&(c.description=e.description.trim()),Object.keys(r).length>0&&(c.arguments=r),o.length>0&&(c.hideArguments=o),{ok:!0,body:Object.keys(c).length>0?c:null}}function $t(e){if(!e)return``;let t=[];e.name&&t.push(`shown as ${e.name}`),e.description&&t.push(`own description`);let n=Object.keys(e.arguments??{}).length;return n>0&&t.push(`${n} ${n===1?`default`:`defaults`}`),e.hideArguments&&e.hideArguments.length>0&&t.push(`hides ${e.hideArguments.join(`, `)}`),t.join(` · `)}var V=encodeURIComponent,en={put:(e,t,n)=>w(`PUT`,`servers/${V(e)}/tools/${V(t)}/override`,`save the override of ${t}`,n),remove:(e,t)=>w(`DELETE`,`servers/${V(e)}/tools/${V(t)}/override`,`remove the override of ${t}`)};function tn(e,t,n,r,i){let a=e=>i.change({...t,...e}),o=e=>e.target.value;return g`<form
    class="override-form"
    data-testid="override-form"
    aria-label=${`Override of ${e.name}`}
    @submit=${e=>{e.preventDefault(),i.save()}}
  >
    <label>Name clients see <input name="name" .value=${t.name} placeholder=${e.name}
      @input=${e=>a({name:o(e)})} /></label>
    <label>Description <input name="description" .value=${t.description} placeholder=${e.description}
      @input=${e=>a({description:o(e)})} /></label>
    <label>Default arguments (JSON) <textarea name="defaults" rows="2" .value=${t.defaults}
      placeholder='{"limit": 5}' @input=${e=>a({defaults:o(e)})}></textarea></label>
    ${e.arguments.length>0?g`<fieldset>
          <legend>Hide from clients</legend>
          ${e.arguments.map(e=>g`<label class="inline"><input type="checkbox" name="hide" value=${e}
                .checked=${t.hidden.includes(e)}
                @change=${n=>{let r=n.target.checked;a({hidden:r?[...t.hidden,e]:t.hidden.filter(t=>t!==e)})}} /> <code>${e}</code></label>`)}
        </fieldset>`:``}
    ${n?g`<p class="error-text" role="alert" data-testid="override-error">${n}</p>`:``}
    <div class="actions">
      <button type="submit" ?disabled=${r} data-action="save-override">Save</button>
      <button type="button" ?disabled=${r} @click=${()=>i.cancel()}>Cancel</button>
    </div>
    <p class="muted">Saved in the config file; a blank form removes the override.</p>
  </form>`}function nn(e){return e===null?`counting…`:e<1e3?`${e} ${e===1?`token`:`tokens`}`:e<1e4?`${(Math.round(e/100)/10).toString()}k tokens`:`${Math.round(e/1e3)}k tokens`}function rn(e,t){let n=e.servers.find(e=>e.id===t);return n?`${n.listedAt??``}|${n.toolCount}|${n.toolTokens??0}`:null}var an=encodeURIComponent,on={list:e=>w(`GET`,`servers/${an(e)}/tools`,`read the tools of ${e}`),setEnabled:(e,t,n)=>w(`POST`,`servers/${an(e)}/tools/${an(t)}/${n?`enable`:`disable`}`,`${n?`enable`:`disable`} ${t} of ${e}`)},sn=20,cn=500;function ln(e){let t={open:null,data:null,error:null,loadedFor:null,editing:null},n=(r,i=sn)=>{on.list(r).then(a=>{t.open===r&&(t.data=a,t.error=null,e.update(),i>0&&a.tools.some(e=>e.tokens===null)&&setTimeout(()=>{t.open===r&&n(r,i-1)},cn))},n=>{t.open===r&&(t.error=n instanceof Error?n.message:String(n),e.update())})};return{state:t,actions:{editOverride:n=>{let r=t.data?.tools.find(e=>e.name===n);t.editing=!r||t.editing?.tool===n?null:{tool:n,draft:Zt(r),error:null},e.update()},changeOverride:n=>{t.editing&&={...t.editing,draft:n},e.update()},saveOverride:r=>{let i=t.editing,a=i&&t.data?.tools.find(e=>e.name===i.tool);if(!i||!a)return;let o=Qt(i.draft,a);if(!o.ok){t.editing={...i,error:o.error},e.update();return}let s=i.tool;e.run(`override:${r}:${s}`,async()=>{try{o.body?await en.put(r,s,o.body):await en.remove(r,s)}catch(e){throw t.editing?.tool===s&&(t.editing={...t.editing,error:e instanceof Error?e.message:String(e)}),e}t.editing?.tool===s&&(t.editing=null),t.open===r&&n(r)},o.body?`Override of ${s} saved.`:`Override of ${s} removed.`)},show(r){t.editing=null,t.open===r?(t.open=null,t.data=null,t.error=null,t.loadedFor=null):(t.open=r,t.data=null,t.error=null,t.loadedFor=null,n(r)),e.update()},setEnabled(r,i,a){e.run(`tool:${r}:${i}`,async()=>{await on.setEnabled(r,i,a),t.open===r&&n(r)},`${i} of ${r} ${a?`enabled`:`disabled`}.`)}},observe:e=>{if(!t.open)return;let r=rn(e,t.open);r===null?(t.open=null,t.data=null):(t.loadedFor!==null&&t.loadedFor!==r&&n(t.open),t.loadedFor=r)}}}function un(e,t,n){let r=t.open===e;return g`<button
    type="button"
    class="small"
    data-action="tools"
    aria-expanded=${r?`true`:`false`}
    aria-label=${`${r?`Hide`:`Show`} the tools of ${e}`}
    @click=${()=>n.show(e)}
  >
    Tools
  </button>`}function dn(e,t,n,r,i){if(n.open!==e)return v;let a=n.data;return g`<tr class="detail tools-row">
    <td></td>
    <td colspan="7">
      <div class="tools" data-testid="tools">
        <div class="tools-head">
          <b>Tools of ${e}</b>
          <span class="muted" data-testid="tool-tokens">${nn(t)} in clients' context</span>
        </div>
        ${n.error?g`<p class="error-text">${n.error}</p>`:a?a.listed?a.tools.length===0?g`<p class="muted">This server has no tools.</p>`:g`<ul class="tool-list">
                    ${a.tools.map(t=>{let a=`tool:${e}:${t.name}`;return g`<li data-tool=${t.name} class=${t.enabled?``:`off`}>
                        <label>
                          <input
                            type="checkbox"
                            .checked=${t.enabled}
                            ?disabled=${r.has(a)}
                            aria-label=${`${t.enabled?`Disable`:`Enable`} ${t.name} of ${e}`}
                            @change=${n=>i.setEnabled(e,t.name,n.target.checked)}
                          />
                          <code>${t.name}</code>
                        </label>
                        <span class="muted">${t.description}</span>
                        <span class="muted override-summary" data-testid="override-summary">${$t(t.toolOverride)}</span>
                        <span class="muted tokens">${nn(t.tokens)}</span>
                        <button
                          type="button"
                          class="small"
                          data-action="override"
                          aria-expanded=${n.editing?.tool===t.name?`true`:`false`}
                          aria-label=${`Override ${t.name} of ${e}`}
                          @click=${()=>i.editOverride(t.name)}
                        >
                          Override
                        </button>
                        ${n.editing?.tool===t.name?tn(t,n.editing.draft,n.editing.error,r.has(`override:${e}:${t.name}`),{change:e=>i.changeOverride(e),save:()=>i.saveOverride(e),cancel:()=>i.editOverride(t.name)}):v}
                      </li>`})}
                  </ul>`:g`<p class="muted">Not listed yet: the tools show once a client uses this server (or after Refresh).</p>`:g`<p class="muted">Loading…</p>`}
      </div>
    </td>
  </tr>`}function fn(e,t=10){return`search?q=${encodeURIComponent(e.trim())}&limit=${t}`}function pn(e,t=160){let n=e.split(`
`,1)[0]??``;return n.length>t?`${n.slice(0,t-1)}…`:n}function mn(e){switch(e){case`semantic`:return{text:`by meaning`,title:`Found by meaning: the tool shares no words with the request`};case`both`:return{text:`words + meaning`,title:`Found by its words and by meaning`};default:return{text:`by words`,title:`Found by the request's words in the tool's name or description`}}}function hn(e){let t={query:``,results:null,error:null,busy:!1},n=0;return{state:t,actions:{search(r){if(t.query=r,r.trim()===``){t.results=null,t.error=null,e.update();return}let i=++n;t.busy=!0,e.update(),w(`GET`,fn(r),`search the tools`).then(r=>{i===n&&(t.results=r.tools,t.error=null,t.busy=!1,e.update())},r=>{i===n&&(t.error=r instanceof Error?r.message:String(r),t.busy=!1,e.update())})}}}}function gn(e){let t=mn(e);return g`<span class="badge matched" data-matched=${e??`lexical`} title=${t.title}>${t.text}</span>`}function _n(e,t){return g`<section class="search" aria-labelledby="search-h">
    <h2 id="search-h">Find a tool</h2>
    <form
      role="search"
      @submit=${e=>{e.preventDefault();let n=e.target.elements.namedItem(`q`);n instanceof HTMLInputElement&&t.search(n.value)}}
    >
      <input
        type="search"
        name="q"
        aria-label="Search the tools of every server"
        placeholder="What should the tool do? e.g. read a file"
        .value=${e.query}
      />
      <button type="submit" class="small" ?disabled=${e.busy}>${e.busy?`Searching…`:`Search`}</button>
    </form>
    <p class="muted">What an agent's <code>switchboard__search_tools</code> would find: every enabled server's tools, running or not.</p>
    ${e.error?g`<p class="error-text" role="alert">${e.error}</p>`:v}
    ${e.results===null?v:e.results.length===0?g`<p class="muted" data-testid="search-empty">No tool matches.</p>`:g`<ol class="search-results" data-testid="search-results">
            ${e.results.map(e=>g`<li data-tool=${e.name}>
                <code>${e.name}</code>
                <span class="pill">${e.server}</span>
                ${e.running?g`<span class="badge">running</span>`:v}
                ${gn(e.matched)}
                <div class="muted">${pn(e.description)}</div>
              </li>`)}
          </ol>`}
  </section>`}function vn(e,t){let n=`pending/${encodeURIComponent(e)}`;return t===`deny`?{path:`${n}/deny`,body:void 0}:{path:`${n}/allow`,body:t===`always`?{always:!0}:void 0}}function yn(e,t=300){let n=JSON.stringify(e??{});return n.length>t?`${n.slice(0,t-1)}…`:n}function bn(e,t){if(e.calls.length===0&&!e.error)return v;let n=e.calls.length;return g`<section class="pending" aria-labelledby="pending-h" data-testid="pending">
    <h2 id="pending-h">${n===1?`1 call waits`:`${n} calls wait`} for your approval</h2>
    ${e.error?g`<p class="error-text" role="alert">${e.error}</p>`:v}
    <ul class="pending-list">
      ${e.calls.map(n=>{let r=e.deciding.has(n.id);return g`<li data-testid="pending-call" data-id=${n.id}>
          <div>
            <strong>${n.server}</strong> · <code>${n.tool}</code>
            <span class="muted">from ${n.client??`an unnamed client`}</span>
          </div>
          <pre class="arguments" data-testid="pending-arguments">${yn(n.arguments)}</pre>
          <div class="buttons">
            <button ?disabled=${r} @click=${()=>t.decide(n.id,`allow`)}>Allow</button>
            <button ?disabled=${r} title="Allow, and stop asking for this tool (adds it to allowTools)"
              @click=${()=>t.decide(n.id,`always`)}>Always</button>
            <button ?disabled=${r} class="danger" @click=${()=>t.decide(n.id,`deny`)}>Deny</button>
          </div>
        </li>`})}
    </ul>
  </section>`}function xn(e){let t={calls:[],error:null,deciding:new Set},n=async()=>{try{let e=await w(`GET`,`pending`,`list the calls waiting`);t.calls=e.calls}catch{t.calls=[]}e.update()};return{state:t,actions:{decide(r,i){let{path:a,body:o}=vn(r,i);t.deciding.add(r),e.update(),w(`POST`,a,`${i} the call`,o).then(()=>{t.error=null,t.calls=t.calls.filter(e=>e.id!==r),t.deciding.delete(r),e.update()},e=>{t.error=e instanceof Error?e.message:String(e),t.deciding.delete(r),n()})}},follow(e=1e3){n(),setInterval(()=>void n(),e)}}}var Sn={live:`Live`,polling:`Updating every few seconds`,offline:`Not connected`};function Cn(e,t){let n=e.view,r=Sn[e.connection];return g`<header class="top">
    <div class="brand">
      <span class="dot health-${n?.overall??`unknown`}" aria-hidden="true"></span>
      <h1>Switchboard</h1>
      ${n?g`<span class="muted version">v${n.version}</span>`:v}
    </div>
    ${n?g`<div class="endpoint">
          <span class="label" id="endpoint-label">Endpoint</span>
          <code aria-labelledby="endpoint-label" data-testid="endpoint">${n.endpoint}</code>
          <button type="button" class="small" aria-label="Copy the endpoint URL" @click=${()=>t.copy(n.endpoint,`Endpoint URL`)}>
            Copy
          </button>
        </div>
        <div class="totals" data-testid="totals">
          <span>${n.totalsLabel}</span>
          ${n.healthSummary?g`<span class="muted">${n.healthSummary}</span>`:v}
        </div>
        ${Ee(n.endpoints)}`:v}
    <div class="header-actions">
      <span class="conn conn-${e.connection}" role="status" title=${e.connectionDetail??r}>${r}</span>
      <button type="button" class="primary" ?disabled=${!n||e.busy.has(`refreshAll`)} @click=${t.refreshAll}>
        ${e.busy.has(`refreshAll`)?`Refreshing…`:`Refresh all`}
      </button>
    </div>
  </header>`}function wn(e,t){let n=e.view;return g`
    ${e.startupError?g`<div class="banner error" role="alert" data-testid="startup-error">
          <strong>Switchboard could not start its hub.</strong> ${e.startupError}
        </div>`:v}
    ${e.connection===`offline`&&!e.startupError?g`<div class="banner error" role="alert" data-testid="offline">
          ${e.connectionDetail??`Switchboard is not answering.`} The page reconnects by itself.
        </div>`:v}
    ${n?.configError?g`<div class="banner error" role="alert" data-testid="config-error">${n.configError}</div>`:v}
    ${n&&n.reloadNotes.length>0?g`<div class="banner warn" role="status">
          The last config reload said: ${n.reloadNotes.join(`; `)}
        </div>`:v}
    <div class="notice-slot" aria-live="polite">
      ${e.notice?g`<div class="banner notice ${e.notice.kind===`error`?`error`:`ok`}" data-testid="notice">
            <span
              >${e.notice.text}
              ${e.notice.link?g`<a href=${e.notice.link.href} target="_blank" rel="noopener noreferrer">${e.notice.link.label}</a>`:v}</span
            >
            <button type="button" class="small" aria-label="Dismiss this message" @click=${t.dismissNotice}>×</button>
          </div>`:v}
    </div>
  `}function Tn(e,t,n){let r=t.busy.has(`toggle:${e.id}`);return g`<button
    type="button"
    class="switch"
    role="switch"
    aria-checked=${e.enabled?`true`:`false`}
    aria-label=${`${e.id} enabled`}
    title=${e.enabled?`Disable ${e.id}`:`Enable ${e.id}`}
    ?disabled=${r}
    data-action="toggle"
    @click=${()=>n.toggle(e.id,!e.enabled)}
  >
    <span class="knob" aria-hidden="true"></span>
  </button>`}function En(e){let t=e.lastChange;if(!t)return v;let n=t.summary?g`${t.summary}`:g`${t.added.map(e=>g`<span class="added">+${e}</span> `)}${t.removed.map(e=>g`<span class="removed">−${e}</span> `)}${t.modified.map(e=>g`<span class="modified">~${e}</span> `)}${t.added.length+t.removed.length+t.modified.length===0?`lists changed`:v}`;return g`<div class="change" data-testid="last-change" title=${e.lastChangeLabel??``}>
    ${e.recentlyChanged?g`<span class="badge recent-badge">Changed</span>`:v}
    Last change ${t.when}${t.how?` (found ${t.how})`:``}: ${n}
  </div>`}function Dn(e,t,n){let r=t.busy.has(`refresh:${e.id}`),i=t.pins.get(e.id),a=e.error||e.breaker||e.unverified||e.authNote||i||e.notes.length>0;return g`<tbody
    class="server health-${e.health} ${e.recentlyChanged?`recent`:``} ${e.enabled?``:`off`}"
    data-server=${e.id}
    data-state=${e.state}
  >
    <tr>
      <td class="c-toggle">${Tn(e,t,n)}</td>
      <th scope="row" class="c-name">
        <span class="name">${e.id}</span>
        ${e.sandbox?g`<span
              class="shield shield-${e.sandbox.level}"
              data-testid="sandbox"
              title=${e.sandbox.hint}
              aria-label=${e.sandbox.label}
              >${e.sandbox.symbol}<span class="shield-label">${e.sandbox.level===`contained`?``:` ${e.sandbox.label}`}</span></span
            >`:v}
        ${e.serverInfo?g`<span class="muted info">${e.serverInfo}</span>`:v}
      </th>
      <td class="c-transport"><span class="pill">${e.transport}</span></td>
      <td class="c-state" data-testid="state" title=${e.stateHint}>${e.stateLabel}</td>
      <td class="c-health" data-testid="health">
        <span class="sym health-${e.health}" aria-hidden="true">${e.healthSymbol}</span> ${e.healthLabel}
      </td>
      <td class="c-counts">
        <span data-testid="counts">${e.countsLabel}</span>
        ${e.otherCountsLabel?g`<span class="muted other-counts">${e.otherCountsLabel}</span>`:v}
      </td>
      <td class="c-fresh">
        <div data-testid="staleness" class=${e.stale?`stale`:``} title=${e.stalenessDetail}>${e.staleness}</div>
        ${En(e)}
      </td>
      <td class="c-actions">
        <button
          type="button"
          class="small"
          ?disabled=${!e.enabled||r}
          aria-label=${`Refresh ${e.id}`}
          data-action="refresh"
          @click=${()=>n.refresh(e.id)}
        >
          ${r?`Refreshing…`:`Refresh`}
        </button>
        ${e.canLogin?g`<button
              type="button"
              class="small primary"
              aria-label=${`Log in to ${e.id}`}
              ?disabled=${e.loginPending||t.busy.has(`login:${e.id}`)}
              @click=${()=>n.login(e.id)}
            >
              ${e.loginPending?`Waiting for login…`:`Log in`}
            </button>`:v}
        ${e.canLogout?g`<button type="button" class="small" aria-label=${`Log out of ${e.id}`} @click=${()=>n.logout(e.id)}>
              Log out
            </button>`:v}
        <button type="button" class="small" aria-label=${`Show logs of ${e.id}`} data-action="logs" @click=${()=>n.openLogs(e.id)}>
          Logs
        </button>
        ${Ct(e.id,n.setup)} ${un(e.id,t.tools,n.tools)}
      </td>
    </tr>
    ${dn(e.id,e.toolTokens,t.tools,t.busy,n.tools)}
    ${a?g`<tr class="detail">
          <td></td>
          <td colspan="7">
            ${e.authNote?g`<div class="auth-note" data-testid="auth">${e.authNote}</div>`:v}
            ${e.error?g`<div class="error-text" data-testid="error" role="note" title=${e.fullError??``}>${e.error}</div>`:v}
            ${e.breaker?g`<div class="breaker" data-testid="breaker">${e.breaker}</div>`:v}
            ${e.unverified?g`<div class="muted">Not verified yet: the lists shown come from an earlier run.</div>`:v}
            ${e.notes.map(e=>g`<div class="muted" data-testid="listing-note" role="note">${e}</div>`)}
            ${Vt(e.id,i,t.busy,n.approve)}
          </td>
        </tr>`:v}
  </tbody>`}function On(e,t){let n=e.view;return n?n.servers.length===0?xt(e.setup,t.setup):g`${St(t.setup)}<div class="table-wrap">
    <table class="servers" aria-describedby="servers-h">
      <thead>
        <tr>
          <th scope="col"><span class="sr-only">Enabled</span></th>
          <th scope="col">Server</th>
          <th scope="col">Transport</th>
          <th scope="col">State</th>
          <th scope="col">Health</th>
          <th scope="col">Capabilities</th>
          <th scope="col">Freshness</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      ${it(n.servers,e=>e.id,n=>Dn(n,e,t))}
    </table>
  </div>`:e.startupError?g``:g`<p class="muted" data-testid="loading">${e.connection===`offline`?`Waiting for Switchboard…`:`Loading…`}</p>`}function kn(e,t){let n=e.snippets.find(t=>t.client===e.client)??e.snippets[0];return n?g`<section class="connect" aria-labelledby="connect-h">
    <h2 id="connect-h">Connect a client</h2>
    <div class="tabs" role="tablist" aria-label="Client">
      ${e.snippets.map(r=>g`<button
          type="button"
          role="tab"
          id=${`tab-${r.client}`}
          aria-selected=${r.client===n.client?`true`:`false`}
          aria-controls="snippet-panel"
          tabindex=${r.client===n.client?`0`:`-1`}
          @click=${()=>t.pickClient(r.client)}
          @keydown=${n=>An(n,e,t)}
        >
          ${r.label}
        </button>`)}
    </div>
    <div id="snippet-panel" role="tabpanel" aria-labelledby=${`tab-${n.client}`} data-testid="snippet">
      <p class="muted">${n.where}.</p>
      ${n.command?g`<div class="snippet">
            <pre><code>${n.command}</code></pre>
            <button type="button" class="small" aria-label=${`Copy the ${n.label} command`} @click=${()=>t.copy(n.command??``,`${n.label} command`)}>Copy</button>
          </div>`:v}
      <div class="snippet">
        <pre><code data-testid="snippet-text">${n.text}</code></pre>
        <button type="button" class="small" aria-label=${`Copy the ${n.label} config`} @click=${()=>t.copy(n.text,`${n.label} config`)}>Copy</button>
      </div>
    </div>
  </section>`:g``}function An(e,t,n){let r=t.snippets.map(e=>e.client),i=r.indexOf(t.client),a=i;if(e.key===`ArrowRight`)a=(i+1)%r.length;else if(e.key===`ArrowLeft`)a=(i-1+r.length)%r.length;else if(e.key===`Home`)a=0;else if(e.key===`End`)a=r.length-1;else return;e.preventDefault();let o=r[a];o&&(n.pickClient(o),queueMicrotask(()=>document.getElementById(`tab-${o}`)?.focus()))}function jn(e,t){let n=e.logs;return g`<dialog id="logs" aria-labelledby="logs-h" @close=${t.closeLogs}>
    ${n?g`<div class="dialog-head">
            <h2 id="logs-h">Logs: ${n.id}</h2>
            <button type="button" class="small" @click=${t.reloadLogs}>Reload</button>
            <button type="button" class="small" aria-label="Close the logs" @click=${t.closeLogs}>Close</button>
          </div>
          ${n.error?g`<div class="banner error" role="alert">${n.error}</div>`:v}
          ${n.data?g`<h3>Events</h3>
                ${n.data.events.length===0?g`<p class="muted">No events yet.</p>`:g`<ul class="events" data-testid="log-events">
                      ${n.data.events.map(e=>g`<li class="level-${e.level}"><time>${e.at}</time> <b>${e.level}</b> ${e.message}</li>`)}
                    </ul>`}
                <h3>Standard error</h3>
                ${n.data.stderr.length===0?g`<p class="muted">Nothing on stderr.</p>`:g`<pre class="stderr" data-testid="log-stderr">${n.data.stderr.join(`
`)}</pre>`}`:n.error?v:g`<p class="muted">Loading…</p>`}`:v}
  </dialog>`}function Mn(e,t){return g`${Cn(e,t)}
    <main>
      ${wn(e,t)} ${e.view?bn(e.pending,t.pending):v}
      <section aria-labelledby="servers-h">
        <h2 id="servers-h" class="sr-only">Servers</h2>
        ${On(e,t)}
      </section>
      ${e.view&&e.view.servers.length>0?_n(e.search,t.search):v}
      ${e.view?qt(e.activity,Date.now()):v}
      ${e.view?kn(e,t):v}
    </main>
    ${jn(e,t)} ${wt(e.setup,t.setup)}`}var Nn=`http://switchboard-endpoint.invalid/mcp`,Pn=[{id:`claude-desktop`,name:`Claude Desktop`,where:"Add this to ~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/claude_desktop_config.json, Windows: %APPDATA%\\Claude\\claude_desktop_config.json), or run `switchboard connect claude-desktop`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio",
        "--url",
        "http://switchboard-endpoint.invalid/mcp"
      ]
    }
  }
}
`,atDefault:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio"
      ]
    }
  }
}
`},{id:`claude-code`,name:`Claude Code`,where:"Add this to ~/.claude.json (Windows: %USERPROFILE%\\.claude.json), or run `switchboard connect claude-code`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`cursor`,name:`Cursor`,where:"Add this to ~/.cursor/mcp.json (Windows: %USERPROFILE%\\.cursor\\mcp.json), or run `switchboard connect cursor`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`vscode`,name:`VS Code`,where:"Add this to ~/.config/Code/User/mcp.json (macOS: ~/Library/Application Support/Code/User/mcp.json, Windows: %APPDATA%\\Code\\User\\mcp.json), or run `switchboard connect vscode`",language:`json`,text:`{
  "servers": {
    "switchboard": {
      "type": "http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`windsurf`,name:`Windsurf`,where:"Add this to ~/.codeium/windsurf/mcp_config.json (Windows: %USERPROFILE%\\.codeium\\windsurf\\mcp_config.json), or run `switchboard connect windsurf`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "serverUrl": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`codex`,name:`Codex`,where:"Add this to ~/.codex/config.toml (Windows: %USERPROFILE%\\.codex\\config.toml), or run `switchboard connect codex`",language:`toml`,text:`[mcp_servers.switchboard]
url = "http://switchboard-endpoint.invalid/mcp"
`},{id:`gemini`,name:`Gemini CLI`,where:"Add this to ~/.gemini/settings.json (Windows: %USERPROFILE%\\.gemini\\settings.json), or run `switchboard connect gemini`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "httpUrl": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`vscode-insiders`,name:`VS Code Insiders`,where:"Add this to ~/.config/Code - Insiders/User/mcp.json (macOS: ~/Library/Application Support/Code - Insiders/User/mcp.json, Windows: %APPDATA%\\Code - Insiders\\User\\mcp.json), or run `switchboard connect vscode-insiders`",language:`json`,text:`{
  "servers": {
    "switchboard": {
      "type": "http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`zed`,name:`Zed`,where:"Add this to ~/.config/zed/settings.json (Windows: %APPDATA%\\Zed\\settings.json), or run `switchboard connect zed`",language:`json`,text:`{
  "context_servers": {
    "switchboard": {
      "source": "custom",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`cline`,name:`Cline`,where:"Add this to ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json), or run `switchboard connect cline`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "streamableHttp",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`roo-code`,name:`Roo Code`,where:"Add this to ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json), or run `switchboard connect roo-code`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "streamable-http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`kilo-code`,name:`Kilo Code`,where:"Add this to ~/.config/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\kilocode.kilo-code\\settings\\mcp_settings.json), or run `switchboard connect kilo-code`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "streamable-http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`continue`,name:`Continue`,where:"Add this to ~/.continue/config.yaml (Windows: %USERPROFILE%\\.continue\\config.yaml), or run `switchboard connect continue`",language:`yaml`,text:`mcpServers:
- name: switchboard
  type: streamable-http
  url: http://switchboard-endpoint.invalid/mcp
`},{id:`goose`,name:`Goose`,where:"Add this to ~/.config/goose/config.yaml (Windows: %APPDATA%\\Block\\goose\\config\\config.yaml), or run `switchboard connect goose`",language:`yaml`,text:`extensions:
  switchboard:
    type: streamable_http
    enabled: true
    timeout: 300
    description: 'Switchboard: your MCP servers behind one endpoint'
    uri: http://switchboard-endpoint.invalid/mcp
    name: switchboard
`},{id:`opencode`,name:`opencode`,where:"Add this to ~/.config/opencode/opencode.json (Windows: %USERPROFILE%\\.config\\opencode\\opencode.json), or run `switchboard connect opencode`",language:`json`,text:`{
  "mcp": {
    "switchboard": {
      "type": "remote",
      "enabled": true,
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`lm-studio`,name:`LM Studio`,where:"Add this to ~/.lmstudio/mcp.json (Windows: %USERPROFILE%\\.lmstudio\\mcp.json), or run `switchboard connect lm-studio`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`copilot-cli`,name:`GitHub Copilot CLI`,where:"Add this to ~/.copilot/mcp-config.json (Windows: %USERPROFILE%\\.copilot\\mcp-config.json), or run `switchboard connect copilot-cli`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "http",
      "tools": [
        "*"
      ],
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`qwen-code`,name:`Qwen Code`,where:"Add this to ~/.qwen/settings.json (Windows: %USERPROFILE%\\.qwen\\settings.json), or run `switchboard connect qwen-code`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "httpUrl": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`crush`,name:`Crush`,where:"Add this to ~/.config/crush/crush.json (Windows: %LOCALAPPDATA%\\crush\\crush.json), or run `switchboard connect crush`",language:`json`,text:`{
  "mcp": {
    "switchboard": {
      "type": "http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`kiro`,name:`Kiro`,where:"Add this to ~/.kiro/settings/mcp.json (Windows: %USERPROFILE%\\.kiro\\settings\\mcp.json), or run `switchboard connect kiro`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`amp`,name:`Amp`,where:"Add this to ~/.config/amp/settings.json (Windows: %USERPROFILE%\\.config\\amp\\settings.json), or run `switchboard connect amp`",language:`json`,text:`{
  "amp.mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`junie`,name:`Junie`,where:"Add this to ~/.junie/mcp/mcp.json (Windows: %USERPROFILE%\\.junie\\mcp\\mcp.json), or run `switchboard connect junie`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio",
        "--url",
        "http://switchboard-endpoint.invalid/mcp"
      ]
    }
  }
}
`,atDefault:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio"
      ]
    }
  }
}
`},{id:`augment`,name:`Augment (Auggie CLI)`,where:"Add this to ~/.augment/settings.json (Windows: %USERPROFILE%\\.augment\\settings.json), or run `switchboard connect augment`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "http",
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`trae`,name:`Trae`,where:"Add this to ~/.config/Trae/User/mcp.json (macOS: ~/Library/Application Support/Trae/User/mcp.json, Windows: %APPDATA%\\Trae\\User\\mcp.json), or run `switchboard connect trae`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`jan`,name:`Jan`,where:"Add this to ~/.config/Jan/data/mcp_config.json (macOS: ~/Library/Application Support/Jan/data/mcp_config.json, Windows: %APPDATA%\\Jan\\data\\mcp_config.json), or run `switchboard connect jan`",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "type": "http",
      "command": "",
      "args": [],
      "active": true,
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`},{id:`cherry-studio`,name:`Cherry Studio`,where:"Cherry Studio keeps MCP servers in its own store, not in a file: paste the snippet from `switchboard connect cherry-studio --print` in Settings > MCP Servers > Add > Import from JSON",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio",
        "--url",
        "http://switchboard-endpoint.invalid/mcp"
      ]
    }
  }
}
`,atDefault:`{
  "mcpServers": {
    "switchboard": {
      "command": "switchboard",
      "args": [
        "stdio"
      ]
    }
  }
}
`},{id:`warp`,name:`Warp`,where:"Warp keeps MCP servers in its own database, not in a file: paste the snippet from `switchboard connect warp --print` in Settings > AI > MCP Servers > Add",language:`json`,text:`{
  "mcpServers": {
    "switchboard": {
      "url": "http://switchboard-endpoint.invalid/mcp"
    }
  }
}
`}],Fn=`claude-code`;function In(e,t){return e===`claude-code`?`claude mcp add --transport http --scope user switchboard ${t}`:null}function Ln(e){return Pn.map(t=>({client:t.id,label:t.name,where:t.where,language:t.language,text:e===`http://127.0.0.1:8420/mcp`&&t.atDefault!==void 0?t.atDefault:t.text.split(Nn).join(e),command:In(t.id,e)}))}var H=document.getElementById(`app`);H&&(H.textContent=``);var Rn=new Ue,U=null,W=null,G=new Set,zn=bt({update:()=>X(),notify:(e,t)=>Z(e,t)}),Bn=ln({update:()=>X(),run:(e,t,n)=>$(e,t,n)}),Vn=hn({update:()=>X()}),Hn=xn({update:()=>X()}),K={view:null,connection:`polling`,connectionDetail:null,startupError:new URLSearchParams(location.search).get(`hubError`),notice:null,busy:G,snippets:[],client:Fn,logs:null,setup:zn.state,pins:new Map,activity:Ht(),tools:Bn.state,search:Vn.state,pending:Hn.state},q=new Map,J=new Map,Y=new Map;function X(){H&&(K.view=U?Ke(U,Date.now(),Rn):null,K.snippets=U?Ln(U.endpoint):[],K.pins=U?jt(U,q,Y):new Map,ge(Mn(K,Gn),H),document.title=U?`Switchboard · ${K.view?.totalsLabel??``}`:`Switchboard`)}function Z(e,t,n){K.notice=n?{kind:e,text:t,link:n}:{kind:e,text:t},W&&clearTimeout(W),W=setTimeout(()=>{K.notice=null,X()},e===`error`?15e3:5e3),X()}function Q(e){return e instanceof C||e instanceof Error?e.message:String(e)}async function $(e,t,n){if(!G.has(e)){G.add(e),X();try{await t(),n&&Z(`ok`,n)}catch(e){Z(`error`,Q(e))}finally{G.delete(e),X()}}}async function Un(e){if(navigator.clipboard&&window.isSecureContext)try{await navigator.clipboard.writeText(e);return}catch{}let t=document.createElement(`textarea`);t.value=e,t.setAttribute(`readonly`,``),t.style.position=`fixed`,t.style.opacity=`0`,document.body.appendChild(t),t.select();let n=document.execCommand(`copy`);if(t.remove(),!n)throw Error(`the browser did not allow copying; select the text and copy it by hand`)}async function Wn(e){try{let t=await E.logs(e);K.logs?.id===e&&(K.logs={id:e,data:t,error:null})}catch(t){K.logs?.id===e&&(K.logs={id:e,data:null,error:Q(t)})}X()}var Gn={copy(e,t){Un(e).then(()=>Z(`ok`,`${t} copied.`),e=>Z(`error`,`Could not copy: ${Q(e)}`))},refreshAll(){$(`refreshAll`,async()=>{let e=await E.refreshAll(),t=e.servers.filter(e=>!e.ok);if(t.length>0)throw Error(`Refreshed ${e.servers.length-t.length} of ${e.servers.length} servers; `+t.map(e=>`${e.id}: ${e.error??`failed`}`).join(`; `))},`All servers refreshed.`)},toggle(e,t){$(`toggle:${e}`,()=>E.setEnabled(e,t),`${e} ${t?`enabled`:`disabled`}.`)},refresh(e){$(`refresh:${e}`,()=>E.refresh(e),`${e} refreshed.`)},login(e){$(`login:${e}`,async()=>{let t=await E.login(e);window.open(t.authorizationUrl,`_blank`,`noopener,noreferrer`),Z(`ok`,`Log-in to ${e} started: finish it in your browser.`,{href:t.authorizationUrl,label:`Open the login page again`})},null)},logout(e){$(`logout:${e}`,()=>E.logout(e),`Logged out of ${e}.`)},openLogs(e){K.logs={id:e,data:null,error:null},X();let t=document.getElementById(`logs`);t instanceof HTMLDialogElement&&!t.open&&t.showModal(),Wn(e)},closeLogs(){let e=document.getElementById(`logs`);if(e instanceof HTMLDialogElement&&e.open&&e.close(),K.logs){let e=K.logs.id;K.logs=null,X(),document.querySelector(`[data-server="${CSS.escape(e)}"] [data-action="logs"]`)?.focus()}},reloadLogs(){K.logs&&Wn(K.logs.id)},approve(e,t){let n=t?.map(Nt);$(`approve:${e}:${n?n.join(`,`):`*`}`,()=>It.approve(e,t),`Approved ${n?n.join(`, `):`the tools`} of ${e}.`)},dismissNotice(){W&&clearTimeout(W),K.notice=null,X()},pickClient(e){K.client=e,X()},setup:zn.actions,tools:Bn.actions,search:Vn.actions,pending:Hn.actions};function Kn(e){let t=jt(e,q);for(let e of[...J.keys()])t.has(e)||(J.delete(e),q.delete(e),Y.delete(e));for(let[e,n]of t){let t=Mt(n);t!==``&&J.get(e)!==t&&(J.set(e,t),Y.delete(e),It.held(e).then(n=>{J.get(e)===t&&(q.set(e,n.tools),X())},n=>{J.get(e)===t&&(Y.set(e,Q(n)),X())}))}}function qn(e){Rn.observe(e,Date.now()),U=e,zn.observe(e),Kn(e),Bn.observe(e),X()}function Jn(e,t){(K.connection!==e||K.connectionDetail!==(t??null))&&(K.connection=e,K.connectionDetail=t??null,X())}K.startupError?K.connection=`offline`:(xe(qn,Jn),Hn.follow(),Yt(()=>K.activity,e=>{K.activity=e,X()})),setInterval(X,5e3),X();